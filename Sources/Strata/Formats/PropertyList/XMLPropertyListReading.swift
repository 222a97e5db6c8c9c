import StrataPlatform

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// The byte-level XML reading under ``XMLPropertyListParser``: markup, text content, positions.
extension XMLPropertyListParser {
  // MARK: Markup

  /// Skips whitespace, comments and processing instructions (and a DOCTYPE where one may stand).
  mutating func skipMisc(allowDoctype: Bool) throws(StrataError) {
    while index < bytes.count {
      let c = bytes[index]
      if c == .space || c == .tab || c == .newline || c == .cr {
        index += 1
      } else if c != .lt {
        return
      } else if byte(at: index + 1) != .bang && byte(at: index + 1) != UInt8(ascii: "?") {
        return  // a tag: the common case, decided without comparing prefixes
      } else if hasPrefix("<!--") {
        try skipComment()
      } else if hasPrefix("<?") {
        try skip(past: "?>", what: "processing instruction")
      } else if allowDoctype && hasPrefix("<!DOCTYPE") {
        try skipDoctype()
      } else {
        return
      }
    }
  }

  mutating func skipComment() throws(StrataError) {
    try skip(past: "-->", what: "comment", from: index + 4)
  }

  /// Moves past the next `terminator`, or fails naming the construct that started at `index`.
  mutating func skip(past terminator: StaticString, what: String, from: Int? = nil)
    throws(StrataError)
  {
    let start = index
    let t = UnsafeBufferPointer(start: terminator.utf8Start, count: terminator.utf8CodeUnitCount)
    var i = from ?? index + 2
    while i + t.count <= bytes.count {
      if bytes[i] == t[0], zip(t.indices, t).allSatisfy({ bytes[i + $0] == $1 }) {
        index = i + t.count
        return
      }
      i += 1
    }
    throw error(.unexpectedEnd, "unterminated \(what)", at: start)
  }

  /// Skips `<!DOCTYPE …>`, including a bracketed internal subset and quoted strings.
  mutating func skipDoctype() throws(StrataError) {
    let start = index
    var i = index + 9
    var quote: UInt8 = 0
    var brackets = 0
    while i < bytes.count {
      let c = bytes[i]
      if quote != 0 {
        if c == quote { quote = 0 }
      } else if c == .quote || c == .apostrophe {
        quote = c
      } else if c == .openBracket {
        brackets += 1
      } else if c == .closeBracket {
        brackets -= 1
      } else if c == .gt && brackets <= 0 {
        index = i + 1
        return
      }
      i += 1
    }
    throw error(.unexpectedEnd, "unterminated <!DOCTYPE>", at: start)
  }

  /// Reads `<name attr="…" …>` or `<name …/>` at `index`; returns the name's range and whether it closed itself.
  mutating func readOpenTag() throws(StrataError) -> (Range<Int>, Bool) {
    let start = index
    index += 1
    let name = readName()
    guard !name.isEmpty else { throw error(.syntax, "expected an element name after '<'", at: start) }
    var quote: UInt8 = 0
    while index < bytes.count {
      let c = bytes[index]
      index += 1
      if quote != 0 {
        if c == quote { quote = 0 }
      } else if c == .quote || c == .apostrophe {
        quote = c
      } else if c == .gt {
        return (name, false)
      } else if c == .slash {
        guard index < bytes.count else { break }
        guard bytes[index] == .gt else { throw error(.syntax, "expected '>' after '/'", at: index - 1) }
        index += 1
        return (name, true)
      } else if c == .lt {
        throw error(.syntax, "unexpected '<' inside the tag <\(text(name))>", at: index - 1)
      }
    }
    throw error(.unexpectedEnd, "unterminated tag <\(text(name))>", at: start)
  }

  /// Reads `</name>` at `index` and returns the name's range.
  mutating func readCloseTag() throws(StrataError) -> Range<Int> {
    let start = index
    index += 2
    let name = readName()
    while index < bytes.count, bytes[index].isXMLSpace { index += 1 }
    guard index < bytes.count else { throw error(.unexpectedEnd, "unterminated closing tag", at: start) }
    guard bytes[index] == .gt, !name.isEmpty else { throw error(.syntax, "malformed closing tag", at: start) }
    index += 1
    return name
  }

  mutating func readName() -> Range<Int> {
    let start = index
    var end = index
    let count = bytes.count
    while end < count, bytes[end].isNameByte { end += 1 }
    index = end
    return start..<end
  }

  /// Reads the body of `<true>` or `<false>` written with a closing tag: only whitespace may stand inside.
  mutating func readEmptyContent(of element: PropertyListElement) throws(StrataError) {
    let start = index
    try skipMisc(allowDoctype: false)
    guard index + 1 < bytes.count, bytes[index] == .lt, bytes[index + 1] == .slash else {
      throw error(.syntax, "<\(element.name)> must be empty", at: index < bytes.count ? index : start)
    }
    let closeStart = index
    let name = try readCloseTag()
    guard PropertyListElement(name, in: bytes) == element else {
      throw error(
        .syntax, "mismatched closing tag </\(text(name))>; expected </\(element.name)>", at: closeStart)
    }
  }

  // MARK: Text

  /// The content of a text element: a span of the input when nothing needed decoding, else decoded bytes.
  enum Content {
    case span(Range<Int>)
    case decoded([UInt8], at: Int)
  }

  /// Reads a text element's content up to its closing tag, decoding entities, CDATA and line ends.
  mutating func readText(of element: PropertyListElement, start: Int) throws(StrataError) -> Content {
    let contentStart = index
    // Fast path: most values are plain text followed directly by their closing tag.
    var i = index
    while i < bytes.count {
      let c = bytes[i]
      if c == .lt || c == .amp || c == .cr { break }
      i += 1
    }
    var content = Content.span(contentStart..<i)
    if i >= bytes.count || bytes[i] != .lt || byte(at: i + 1) != .slash {
      var out = Array(bytes[contentStart..<i])
      index = i
      while true {
        guard index < bytes.count else {
          throw error(
            .unexpectedEnd, "unterminated <\(element.name)>: the file ends before its closing tag",
            at: start)
        }
        let c = bytes[index]
        if c == .amp {
          try decodeEntity(into: &out)
        } else if c == .cr {
          out.append(.newline)
          index += byte(at: index + 1) == .newline ? 2 : 1
        } else if c != .lt {
          out.append(c)
          index += 1
        } else if byte(at: index + 1) == .slash {
          break
        } else if hasPrefix("<!--") {
          try skipComment()
        } else if hasPrefix("<![CDATA[") {
          let cdataStart = index
          try skip(past: "]]>", what: "CDATA section", from: index + 9)
          out.append(contentsOf: bytes[(cdataStart + 9)..<(index - 3)])
        } else {
          throw error(.syntax, "unexpected markup inside <\(element.name)>", at: index)
        }
      }
      content = .decoded(out, at: contentStart)
    } else {
      index = i
    }
    let closeStart = index
    let name = try readCloseTag()
    guard PropertyListElement(name, in: bytes) == element else {
      throw error(
        .syntax, "mismatched closing tag </\(text(name))>; expected </\(element.name)>", at: closeStart)
    }
    return content
  }

  /// Decodes `&name;`, `&#NN;` or `&#xHH;` at `index` as UTF-8.
  mutating func decodeEntity(into out: inout [UInt8]) throws(StrataError) {
    let start = index
    var end = index + 1
    while end < bytes.count, end - start < 12, bytes[end] != .semicolon { end += 1 }
    guard end < bytes.count, bytes[end] == .semicolon else {
      throw error(.syntax, "unterminated entity reference", at: start)
    }
    let name = bytes[(start + 1)..<end]
    index = end + 1
    switch String(decoding: name, as: UTF8.self) {
    case "lt": out.append(.lt)
    case "gt": out.append(.gt)
    case "amp": out.append(.amp)
    case "quot": out.append(.quote)
    case "apos": out.append(.apostrophe)
    case let reference where reference.hasPrefix("#"):
      let hex = reference.hasPrefix("#x")
      let digits = reference.dropFirst(hex ? 2 : 1)
      // `UInt32(_:radix:)` alone would also take a sign.
      guard digits.count <= 8, digits.allSatisfy(\.isHexDigit),
        let code = UInt32(digits, radix: hex ? 16 : 10),
        code != 0,
        let scalar = Unicode.Scalar(code)
      else {
        // The reference's text is not repeated: it sits inside a value, which may be a secret.
        throw error(
          .syntax, "invalid character reference (expected &#DDD; or &#xHHH; of a character)", at: start)
      }
      out.append(contentsOf: String(Character(scalar)).utf8)
    default:
      // The name is not repeated: it sits inside a value, which may be a secret.
      throw error(
        .syntax, "unknown entity reference (only &lt; &gt; &amp; &quot; &apos; and &#…; exist)", at: start)
    }
  }

  func string(_ content: Content) throws(StrataError) -> String {
    switch content {
    case .span(let range):
      if let s = validString(UnsafeBufferPointer(rebasing: bytes[range])) { return s }
      throw error(.invalidUTF8, "text is not valid UTF-8", at: range.lowerBound)
    case .decoded(let out, let at):
      if let s = out.withUnsafeBufferPointer(validString) { return s }
      throw error(.invalidUTF8, "text is not valid UTF-8", at: at)
    }
  }

  /// Most configuration text is ASCII, which `String(decoding:)` takes as is; `String(validating:)`
  /// goes through generic code that showed up in profiles, so it is kept for the rest.
  private func validString(_ text: UnsafeBufferPointer<UInt8>) -> String? {
    ASCIIBytes.all(text) ? String(decoding: text, as: UTF8.self) : String(validating: text, as: UTF8.self)
  }

  /// Runs a scalar converter over the content; it reports failures as (code, message, offset in content).
  func scalar<T>(
    _ content: Content, _ convert: (UnsafeBufferPointer<UInt8>) -> Result<T, ScalarError>
  ) throws(StrataError) -> T {
    let (result, base): (Result<T, ScalarError>, Int)
    switch content {
    case .span(let range):
      (result, base) = (convert(UnsafeBufferPointer(rebasing: bytes[range])), range.lowerBound)
    case .decoded(let out, let at): (result, base) = (out.withUnsafeBufferPointer { convert($0) }, at)
    }
    switch result {
    case .success(let value): return value
    case .failure(let failure): throw error(failure.code, failure.message, at: base + failure.offset)
    }
  }

  // MARK: Positions and errors

  func byte(at i: Int) -> UInt8 { i < bytes.count ? bytes[i] : 0 }

  func hasPrefix(_ s: StaticString) -> Bool {
    let n = s.utf8CodeUnitCount
    guard index + n <= bytes.count else { return false }
    let p = s.utf8Start
    for k in 0..<n where bytes[index + k] != p[k] { return false }
    return true
  }

  func text(_ range: Range<Int>) -> String { String(decoding: bytes[range], as: UTF8.self) }

  /// The ``KeyHash`` of a key's content.
  func keyHash(_ content: Content) -> UInt32 {
    switch content {
    case .span(let range): KeyHash.of(UnsafeBufferPointer(rebasing: bytes[range]))
    case .decoded(let out, _): out.withUnsafeBufferPointer { KeyHash.of($0) }
    }
  }

  mutating func origin(at offset: Int) -> Origin {
    let (line, column) = lines.position(of: offset, in: bytes)
    return .file(path: path, line: line, column: column)
  }

  func keyWithoutValue(at offset: Int) -> StrataError {
    error(.invalidPropertyList, "<key> without a value after it", at: offset)
  }

  func error(_ code: StrataError.Code, _ message: String, at offset: Int) -> StrataError {
    var counter = LineCounter()
    let (line, column) = counter.position(of: offset, in: bytes)
    return StrataError(code, message, path: path, line: line, column: column)
  }
}

/// Turns byte offsets into 1-based lines and UTF-8 columns, scanning forward from the last query so that
/// asking in file order costs one pass over the input.
///
/// Without carriage returns (nearly every file), it keeps where the current line ends: a position on the
/// same line as the one before (most tags) is a subtraction, and moving to a later line finds each line's
/// end with `memchr`, rather than counting the newlines of every byte between two queries.
struct LineCounter {
  private var offset = 0
  private var line = 1
  private var lineStart = 0
  /// The offset of the `\n` that ends the current line (the buffer's count when none does), or -1 before
  /// it is looked for. Used only when there are no carriage returns.
  private var lineEnd = -1
  /// Whether the text holds a carriage return (decided on first use): without one, `\n` alone ends
  /// lines and each line's end is found with `memchr`.
  private var hasReturns: Bool? = nil

  mutating func position(of target: Int, in bytes: UnsafeBufferPointer<UInt8>) -> (line: Int, column: Int) {
    if target < offset { self = LineCounter() }
    let end = min(target, bytes.count)
    if hasReturns == nil {
      hasReturns = !bytes.isEmpty && memchr(bytes.baseAddress!, Int32(UInt8.cr), bytes.count) != nil
    }
    if hasReturns == false {
      if lineEnd < 0 { lineEnd = Self.newline(in: bytes, from: lineStart) }
      // Each `\n` before `end` starts a new line.
      while lineEnd < end {
        line += 1
        lineStart = lineEnd + 1
        lineEnd = Self.newline(in: bytes, from: lineStart)
      }
      offset = max(end, offset)
      return (line, target - lineStart + 1)
    }
    var i = offset
    while i < end {
      let c = bytes[i]
      // A lone CR ends a line too, as XML treats it.
      if c == .newline || (c == .cr && (i + 1 >= bytes.count || bytes[i + 1] != .newline)) {
        line += 1
        lineStart = i + 1
      }
      i += 1
    }
    offset = max(end, offset)
    return (line, target - lineStart + 1)
  }

  /// The offset of the first `\n` at or after `start`, or the buffer's count.
  private static func newline(in bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
    guard start < bytes.count,
      let found = memchr(bytes.baseAddress! + start, Int32(UInt8.newline), bytes.count - start)
    else { return bytes.count }
    return UnsafeRawPointer(found).assumingMemoryBound(to: UInt8.self) - bytes.baseAddress!
  }
}
