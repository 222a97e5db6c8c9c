/// Reads the assignments of a dotenv file, with positions. The grammar is in the catalog's DotEnvDialect article.
///
/// Errors never quote a value's text (values are often secrets): they name the position, and at most
/// the key.
struct DotEnvParser {
  private let bytes: [UInt8]
  private let path: String
  private let maxDepth: Int
  private var pos = 0
  /// The current line (1-based) and the offset where it starts; a column is `offset - lineStart + 1`.
  private var line = 1
  private var lineStart = 0

  private init(bytes: [UInt8], path: String, maxDepth: Int) {
    self.bytes = bytes
    self.path = path
    self.maxDepth = maxDepth
  }

  /// The assignments of a file, in file order.
  /// - Throws: ``StrataError`` with the line and column of the first problem.
  static func entries(of bytes: [UInt8], path: String, maxDepth: Int) throws(StrataError) -> [DotEnvEntry] {
    var parser = DotEnvParser(bytes: bytes, path: path, maxDepth: maxDepth)
    return try parser.run()
  }

  private static let space = UInt8(ascii: " ")
  private static let tab = UInt8(ascii: "\t")
  private static let newline = UInt8(ascii: "\n")
  private static let carriageReturn = UInt8(ascii: "\r")
  private static let hash = UInt8(ascii: "#")
  private static let singleQuote = UInt8(ascii: "'")
  private static let doubleQuote = UInt8(ascii: "\"")
  private static let backslash = UInt8(ascii: "\\")

  private func error(_ code: StrataError.Code, _ message: String, at offset: Int? = nil) -> StrataError {
    StrataError(code, message, path: path, line: line, column: (offset ?? pos) - lineStart + 1)
  }

  private mutating func run() throws(StrataError) -> [DotEnvEntry] {
    if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { (pos, lineStart) = (3, 3) }
    try checkText()
    var entries: [DotEnvEntry] = []
    while pos < bytes.count {
      let start = pos
      skipBlanks()
      if atLineEnd || bytes[pos] == Self.hash {
        skipToLineEnd()
        endLine()
        continue
      }
      entries.append(try entry(startingAt: start))
    }
    return entries
  }

  // MARK: Lines

  private var atLineEnd: Bool { isLineEnd(pos) }

  /// `\n`, `\r\n`, or the end of the file.
  private func isLineEnd(_ offset: Int) -> Bool {
    guard offset < bytes.count else { return true }
    if bytes[offset] == Self.newline { return true }
    return bytes[offset] == Self.carriageReturn
      && (offset + 1 == bytes.count || bytes[offset + 1] == Self.newline)
  }

  private mutating func skipBlanks() {
    while pos < bytes.count, bytes[pos] == Self.space || bytes[pos] == Self.tab { pos += 1 }
  }

  private mutating func skipToLineEnd() {
    while !atLineEnd { pos += 1 }
  }

  /// Steps over the line break at `pos` (if any) and starts the next line.
  private mutating func endLine() {
    if pos < bytes.count && bytes[pos] == Self.carriageReturn { pos += 1 }
    if pos < bytes.count && bytes[pos] == Self.newline {
      pos += 1
      newLine()
    }
  }

  private mutating func newLine() {
    line += 1
    lineStart = pos
  }

  /// Refuses a NUL byte or invalid UTF-8 anywhere, with its position, before anything is read.
  private func checkText() throws(StrataError) {
    var (line, lineStart) = (line, lineStart)
    func error(_ code: StrataError.Code, _ message: String, at offset: Int) -> StrataError {
      StrataError(code, message, path: path, line: line, column: offset - lineStart + 1)
    }
    var i = pos
    while i < bytes.count {
      let byte = bytes[i]
      if byte == Self.newline {
        line += 1
        lineStart = i + 1
      } else if byte == 0 {
        throw error(.syntax, "a NUL byte (\\0): this is not a text file", at: i)
      } else if byte >= 0x80 {
        guard let (length, second) = UTF8Sequence.shape(ofLead: byte), i + 1 < bytes.count,
          second.contains(bytes[i + 1]),
          (2..<length).allSatisfy({ i + $0 < bytes.count && bytes[i + $0] & 0xC0 == 0x80 })
        else {
          throw error(
            .invalidUTF8, "invalid UTF-8 (byte 0x\(String(byte, radix: 16, uppercase: true)))", at: i)
        }
        i += length
        continue
      }
      i += 1
    }
  }

  // MARK: Assignments

  /// `[export] NAME = value [# comment]`, from the start of its line to after its line break.
  private mutating func entry(startingAt start: Int) throws(StrataError) -> DotEnvEntry {
    if bytes[pos...].starts(with: "export".utf8), pos + 6 < bytes.count,
      bytes[pos + 6] == Self.space || bytes[pos + 6] == Self.tab
    {
      pos += 6
      skipBlanks()
      if atLineEnd { throw error(.syntax, "expected a name after 'export'") }
    }
    let (keyLine, keyColumn, keyStart) = (line, pos - lineStart + 1, pos)
    guard DotEnvKeys.isNameStart(bytes[pos]) else {
      throw error(
        .syntax, "invalid name: a name starts with a letter or '_' (then letters, digits, '_', '.', '-')")
    }
    while pos < bytes.count, DotEnvKeys.isNameByte(bytes[pos]) { pos += 1 }
    let key = String(decoding: bytes[keyStart..<pos], as: UTF8.self)
    guard let names = DotEnvKeys.names(of: key) else {
      throw error(
        .syntax, "invalid name '\(key)': '.' and '__' separate names, which cannot be empty", at: keyStart)
    }
    guard names.count <= maxDepth else {
      throw error(.nestingTooDeep, "'\(key)' nests more than \(maxDepth) names deep", at: keyStart)
    }
    skipBlanks()
    guard pos < bytes.count, bytes[pos] == UInt8(ascii: "=") else {
      if !atLineEnd && pos == keyStart + key.utf8.count {
        throw error(.syntax, "invalid character in the name '\(key)…'; expected '=' after a name")
      }
      throw error(.syntax, "expected '=' after '\(key)'")
    }
    pos += 1
    let afterEquals = pos
    skipBlanks()
    let (valueLine, valueColumn, valueStart) = (line, pos - lineStart + 1, pos)
    let value: String
    let valueEnd: Int
    switch atLineEnd ? 0 : bytes[pos] {
    case Self.singleQuote, Self.doubleQuote:
      value = try quoted(closing: bytes[pos])
      valueEnd = pos
      skipBlanks()
      guard atLineEnd || bytes[pos] == Self.hash else {
        throw error(.syntax, "unexpected text after the closing quote; a comment starts with '#'")
      }
    default:
      valueEnd = unquotedEnd(blankBefore: pos > afterEquals)
      value = String(decoding: bytes[valueStart..<valueEnd], as: UTF8.self)
    }
    skipToLineEnd()
    let lines = start..<lineEndOffset()
    endLine()
    return DotEnvEntry(
      key: key, names: names, value: value, keyLine: keyLine, keyColumn: keyColumn, valueLine: valueLine,
      valueColumn: valueColumn, valueRange: valueStart..<valueEnd, lines: lines)
  }

  /// The offset just after the line break at `pos` (or the file's end).
  private func lineEndOffset() -> Int {
    var end = pos
    if end < bytes.count && bytes[end] == Self.carriageReturn { end += 1 }
    if end < bytes.count && bytes[end] == Self.newline { end += 1 }
    return end
  }

  /// Where an unquoted value starting at `pos` ends: before an inline comment (`#` after a blank, or
  /// first after blanks that followed `=`) and before trailing blanks.
  private func unquotedEnd(blankBefore: Bool) -> Int {
    var end = pos
    var i = pos
    var previousIsBlank = blankBefore
    while !isLineEnd(i) {
      let byte = bytes[i]
      if byte == Self.hash && previousIsBlank { break }
      previousIsBlank = byte == Self.space || byte == Self.tab
      i += 1
      if !previousIsBlank { end = i }
    }
    return end
  }

  /// A quoted value from its opening quote at `pos` to after its closing quote; it may span lines. In
  /// single quotes every byte is literal; in double quotes `\n \t \r \" \\ \$ \' \a \b \f \v` are
  /// escapes and any other backslash is kept as written. A `\r\n` inside the quotes reads as `\n`.
  private mutating func quoted(closing quote: UInt8) throws(StrataError) -> String {
    let (openLine, openStart, open) = (line, lineStart, pos)
    pos += 1
    var text: [UInt8] = []
    var rawCarriageReturn = false
    while true {
      guard pos < bytes.count else {
        (line, lineStart) = (openLine, openStart)
        let kind = quote == Self.singleQuote ? "single" : "double"
        throw error(.unexpectedEnd, "unterminated \(kind)-quoted value: no closing quote", at: open)
      }
      let byte = bytes[pos]
      pos += 1
      if byte == quote { break }
      defer { rawCarriageReturn = byte == Self.carriageReturn }
      if byte == Self.newline {
        if rawCarriageReturn { text.removeLast() }
        text.append(byte)
        newLine()
      } else if byte == Self.backslash && quote == Self.doubleQuote && pos < bytes.count,
        let decoded = Self.escape(bytes[pos])
      {
        text.append(decoded)
        pos += 1
      } else {
        text.append(byte)
      }
    }
    return String(decoding: text, as: UTF8.self)
  }

  /// The byte a double-quoted `\c` stands for, or `nil` when `\c` is not an escape (then both are kept).
  static func escape(_ byte: UInt8) -> UInt8? {
    switch byte {
    case UInt8(ascii: "n"): 0x0A
    case UInt8(ascii: "t"): 0x09
    case UInt8(ascii: "r"): 0x0D
    case UInt8(ascii: "a"): 0x07
    case UInt8(ascii: "b"): 0x08
    case UInt8(ascii: "f"): 0x0C
    case UInt8(ascii: "v"): 0x0B
    case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "$"), UInt8(ascii: "'"): byte
    default: nil
    }
  }
}
