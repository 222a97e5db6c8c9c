import FoundationEssentials

/// Reads an XML property list byte by byte, giving every node the line and column of its opening `<`.
///
/// Nesting lives on an explicit stack instead of the call stack, so 100,000 nested `<array>` elements end
/// in `nestingTooDeep` rather than overflowing the small stacks of test and worker threads.
struct XMLPropertyListParser {
  private let bytes: UnsafeBufferPointer<UInt8>
  private let path: String
  private let maxDepth: Int
  private var index = 0
  private var lines = LineCounter()
  /// Warnings found while parsing (duplicate keys).
  private(set) var diagnostics: [Diagnostic] = []

  /// An open container, with what it has collected so far.
  private struct Frame {
    var element: PropertyListElement
    var start: Int
    var origin: Origin
    var items: [SettingValue] = []
    var table = SettingTable()
    var key: String?
    var keyStart = 0
  }

  init(bytes: UnsafeBufferPointer<UInt8>, path: String, maxDepth: Int) {
    self.bytes = bytes
    self.path = path
    self.maxDepth = maxDepth
  }

  /// Parses the whole input and returns the value inside `<plist>` (or the bare root element).
  mutating func parse() throws(StrataError) -> SettingValue {
    if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { index = 3 }
    var stack: [Frame] = []
    var depth = 0
    var root: SettingValue?
    while root == nil {
      try skipMisc(allowDoctype: stack.isEmpty)
      guard index < bytes.count else {
        if let top = stack.last {
          throw error(
            .unexpectedEnd, "unterminated <\(top.element.name)>: the file ends before its closing tag",
            at: top.start)
        }
        throw error(.unexpectedEnd, "the file holds no property list element", at: index)
      }
      let start = index
      guard bytes[index] == .lt else {
        let place = stack.last.map { "inside <\($0.element.name)>" } ?? "outside the root element"
        throw error(.syntax, "unexpected text \(place)", at: index)
      }
      if byte(at: index + 1) == .slash {
        let name = try readCloseTag()
        guard let top = stack.last, PropertyListElement(name, in: bytes) == top.element else {
          let expected = stack.last.map { "</\($0.element.name)>" } ?? "no closing tag"
          throw error(.syntax, "mismatched closing tag </\(text(name))>; expected \(expected)", at: start)
        }
        let frame = stack.removeLast()
        let value: SettingValue
        switch frame.element {
        case .dict:
          if frame.key != nil { throw keyWithoutValue(at: frame.keyStart) }
          value = SettingValue(.table(frame.table), origin: frame.origin)
          depth -= 1
        case .array:
          value = SettingValue(.array(frame.items), origin: frame.origin)
          depth -= 1
        default:
          guard let only = frame.items.first else {
            throw error(
              .syntax, "empty <plist>: the top level of a property list must be a <dict>", at: start)
          }
          value = only
        }
        if stack.isEmpty { root = value } else { try deliver(value, to: &stack) }
        continue
      }
      if byte(at: index + 1) == .bang {
        throw error(
          .syntax, "unexpected markup \(hasPrefix("<![CDATA[") ? "CDATA " : "")outside a string", at: start)
      }
      let (name, selfClosing) = try readOpenTag()
      guard let element = PropertyListElement(name, in: bytes) else {
        throw error(.invalidPropertyList, "unknown element <\(text(name))>", at: start)
      }
      if element == .plist {
        guard stack.isEmpty else {
          throw error(.invalidPropertyList, "<plist> inside another element", at: start)
        }
        if selfClosing {
          throw error(.syntax, "empty <plist>: the top level of a property list must be a <dict>", at: start)
        }
        stack.append(Frame(element: .plist, start: start, origin: origin(at: start)))
        continue
      }
      if element == .key {
        guard let top = stack.last, top.element == .dict else {
          throw error(.invalidPropertyList, "<key> outside a <dict>", at: start)
        }
        if top.key != nil { throw keyWithoutValue(at: top.keyStart) }
        let key = selfClosing ? "" : try string(readText(of: element, start: start))
        stack[stack.count - 1].key = key
        stack[stack.count - 1].keyStart = start
        continue
      }
      if let top = stack.last {
        if top.element == .dict, top.key == nil {
          throw error(
            .invalidPropertyList, "<\(element.name)> in a <dict> without a <key> before it", at: start)
        }
        if top.element == .plist, !top.items.isEmpty {
          throw error(.invalidPropertyList, "a second value in <plist>; it holds exactly one", at: start)
        }
      }
      let origin = origin(at: start)
      let kind: SettingValue.Kind
      switch element {
      case .dict, .array:
        guard depth < maxDepth else {
          throw error(.nestingTooDeep, "arrays and dicts nested deeper than \(maxDepth) levels", at: start)
        }
        if selfClosing {
          kind = element == .dict ? .table(SettingTable()) : .array([])
        } else {
          depth += 1
          stack.append(Frame(element: element, start: start, origin: origin))
          continue
        }
      case .true, .false:
        if !selfClosing { try readEmptyContent(of: element) }
        kind = .bool(element == .true)
      case .string:
        kind = .string(selfClosing ? "" : try string(readText(of: element, start: start)))
      case .data:
        kind = .data(selfClosing ? Data() : try scalar(readText(of: element, start: start), decodeBase64))
      default:
        guard !selfClosing else {
          throw error(.invalidPropertyList, "empty <\(element.name)/> has no value", at: start)
        }
        let content = try readText(of: element, start: start)
        switch element {
        case .integer: kind = .integer(try scalar(content, parseInteger))
        case .real: kind = .double(try scalar(content, parseReal))
        default: kind = .date(try scalar(content, parseDate))
        }
      }
      let value = SettingValue(kind, origin: origin)
      if stack.isEmpty { root = value } else { try deliver(value, to: &stack) }
    }
    try skipMisc(allowDoctype: false)
    if index < bytes.count {
      throw error(.syntax, "unexpected content after the end of the property list", at: index)
    }
    return root!
  }

  /// Adds a finished value to the innermost open container.
  private mutating func deliver(_ value: SettingValue, to stack: inout [Frame]) throws(StrataError) {
    let last = stack.count - 1
    guard stack[last].element == .dict else {
      stack[last].items.append(value)
      return
    }
    let key = stack[last].key!
    // Counting instead of asking `contains` first saves a hash per key.
    let before = stack[last].table.count
    stack[last].table[key] = value
    stack[last].key = nil
    if stack[last].table.count == before {
      let (line, column) = lines.position(of: stack[last].keyStart, in: bytes)
      diagnostics.append(
        Diagnostic(
          .warning,
          StrataError(
            .duplicateKey, "duplicate key \"\(key)\"; the last value wins", path: path, line: line,
            column: column)))
    }
  }

  // MARK: Markup

  /// Skips whitespace, comments and processing instructions (and a DOCTYPE where one may stand).
  private mutating func skipMisc(allowDoctype: Bool) throws(StrataError) {
    while index < bytes.count {
      let c = bytes[index]
      if c == .space || c == .tab || c == .newline || c == .cr {
        index += 1
      } else if c != .lt {
        return
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

  private mutating func skipComment() throws(StrataError) {
    try skip(past: "-->", what: "comment", from: index + 4)
  }

  /// Moves past the next `terminator`, or fails naming the construct that started at `index`.
  private mutating func skip(past terminator: StaticString, what: String, from: Int? = nil)
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
  private mutating func skipDoctype() throws(StrataError) {
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
  private mutating func readOpenTag() throws(StrataError) -> (Range<Int>, Bool) {
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
  private mutating func readCloseTag() throws(StrataError) -> Range<Int> {
    let start = index
    index += 2
    let name = readName()
    while index < bytes.count, bytes[index].isXMLSpace { index += 1 }
    guard index < bytes.count else { throw error(.unexpectedEnd, "unterminated closing tag", at: start) }
    guard bytes[index] == .gt, !name.isEmpty else { throw error(.syntax, "malformed closing tag", at: start) }
    index += 1
    return name
  }

  private mutating func readName() -> Range<Int> {
    let start = index
    while index < bytes.count, bytes[index].isNameByte { index += 1 }
    return start..<index
  }

  /// Reads the body of `<true>` or `<false>` written with a closing tag: only whitespace may stand inside.
  private mutating func readEmptyContent(of element: PropertyListElement) throws(StrataError) {
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
  private enum Content {
    case span(Range<Int>)
    case decoded([UInt8], at: Int)
  }

  /// Reads a text element's content up to its closing tag, decoding entities, CDATA and line ends.
  private mutating func readText(of element: PropertyListElement, start: Int) throws(StrataError) -> Content {
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
          index += 9
          try skip(past: "]]>", what: "CDATA section", from: index)
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
  private mutating func decodeEntity(into out: inout [UInt8]) throws(StrataError) {
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
      guard digits.count <= 8, let code = UInt32(digits, radix: hex ? 16 : 10), code != 0,
        let scalar = Unicode.Scalar(code)
      else { throw error(.syntax, "invalid character reference &\(reference);", at: start) }
      out.append(contentsOf: String(Character(scalar)).utf8)
    case let other:
      throw error(.syntax, "unknown entity &\(other);", at: start)
    }
  }

  private func string(_ content: Content) throws(StrataError) -> String {
    switch content {
    case .span(let range):
      if let s = String(validating: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self) { return s }
      throw error(.invalidUTF8, "text is not valid UTF-8", at: range.lowerBound)
    case .decoded(let out, let at):
      if let s = String(validating: out, as: UTF8.self) { return s }
      throw error(.invalidUTF8, "text is not valid UTF-8", at: at)
    }
  }

  /// Runs a scalar converter over the content; it reports failures as (code, message, offset in content).
  private func scalar<T>(
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

  private func byte(at i: Int) -> UInt8 { i < bytes.count ? bytes[i] : 0 }

  private func hasPrefix(_ s: StaticString) -> Bool {
    let n = s.utf8CodeUnitCount
    guard index + n <= bytes.count else { return false }
    let p = s.utf8Start
    for k in 0..<n where bytes[index + k] != p[k] { return false }
    return true
  }

  private func text(_ range: Range<Int>) -> String { String(decoding: bytes[range], as: UTF8.self) }

  private mutating func origin(at offset: Int) -> Origin {
    let (line, column) = lines.position(of: offset, in: bytes)
    return .file(path: path, line: line, column: column)
  }

  private func keyWithoutValue(at offset: Int) -> StrataError {
    error(.invalidPropertyList, "<key> without a value after it", at: offset)
  }

  private func error(_ code: StrataError.Code, _ message: String, at offset: Int) -> StrataError {
    var counter = LineCounter()
    let (line, column) = counter.position(of: offset, in: bytes)
    return StrataError(code, message, path: path, line: line, column: column)
  }
}

/// Turns byte offsets into 1-based lines and UTF-8 columns, scanning forward from the last query so that
/// asking in file order costs one pass over the input.
struct LineCounter {
  private var offset = 0
  private var line = 1
  private var lineStart = 0

  mutating func position(of target: Int, in bytes: UnsafeBufferPointer<UInt8>) -> (line: Int, column: Int) {
    if target < offset { self = LineCounter() }
    var i = offset
    let end = min(target, bytes.count)
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
}
