/// A TOML 1.0 parser over raw bytes that records the line and column of every value.
///
/// The document is read statement by statement (`[header]`, `[[header]]`, `key = value`); values nest
/// (arrays, inline tables) on an explicit stack, never on the call stack, and the tables of the document
/// are kept in a ``TOMLTree`` that applies TOML's redefinition rules. Columns count UTF-8 bytes from 1.
struct TOMLParser {
  let bytes: UnsafeBufferPointer<UInt8>
  let path: String
  let maxDepth: Int
  let maxValues: Int
  var pos = 0
  var line = 1
  /// The offset of the first byte of the current line; columns are counted from it.
  var lineStart = 0
  var tree: TOMLTree
  /// The table the current section's keys go into.
  var current = 0
  /// The number of the current section: 0 before the first header, then one more at each header.
  var section = 0
  /// Where the sections and statements lie, for edits.
  var layout = TOMLLayout()

  /// The 1-based column of `pos`, in UTF-8 bytes.
  var column: Int { pos - lineStart + 1 }

  private init(bytes: UnsafeBufferPointer<UInt8>, path: String, options: ParseOptions) {
    self.bytes = bytes
    self.path = path
    self.maxDepth = options.maxDepth
    self.maxValues = options.maxValues
    tree = TOMLTree(
      path: path, origin: .file(path: path, line: 1, column: 1), maxDepth: options.maxDepth,
      maxValues: options.maxValues)
  }

  /// Parses a whole document into a table.
  static func parse(_ bytes: [UInt8], path: String, options: ParseOptions) throws(StrataError) -> SettingValue
  {
    try parseWithLayout(bytes, path: path, options: options).root
  }

  /// Parses a whole document into a table, with where its statements lie.
  static func parseWithLayout(_ bytes: [UInt8], path: String, options: ParseOptions) throws(StrataError) -> (
    root: SettingValue, layout: TOMLLayout
  ) {
    if bytes.count > options.maxFileSize {
      throw StrataError(
        .fileTooLarge,
        "the file is \(bytes.count) bytes, more than the limit of \(options.maxFileSize) "
          + "(ParseOptions.maxFileSize); split it or raise the limit", path: path)
    }
    return try bytes.withUnsafeBufferPointer { (buffer) throws(StrataError) -> (SettingValue, TOMLLayout) in
      var parser = TOMLParser(bytes: buffer, path: path, options: options)
      try parser.validateUTF8()
      try parser.parseStatements()
      return (parser.tree.build(), parser.layout)
    }
  }

  private mutating func parseStatements() throws(StrataError) {
    if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF {
      pos = 3
      // Editors do not show the byte order mark, so columns on line 1 start after it.
      lineStart = 3
    }
    while true {
      skipBlanks()
      guard pos < bytes.count else { return }
      var isStatement = true
      switch bytes[pos] {
      case UInt8(ascii: "\n"), UInt8(ascii: "\r"), UInt8(ascii: "#"):
        isStatement = false
      case UInt8(ascii: "["):
        try parseHeader()
      case let byte where Self.isBareKeyByte(byte) || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'"):
        try parseKeyValue()
      default:
        throw error(.syntax, "expected a key, a [table] header or a comment, found \(found())")
      }
      try endLine(after: "the statement")
      if isStatement { layout.sections[layout.sections.count - 1].end = pos }
    }
  }

  /// Reads `[a.b]` or `[[a.b]]` and makes its table the current one.
  private mutating func parseHeader() throws(StrataError) {
    let origin = here
    let isArray = pos + 1 < bytes.count && bytes[pos + 1] == UInt8(ascii: "[")
    pos += isArray ? 2 : 1
    skipBlanks()
    let keys = try parseKey()
    skipBlanks()
    let close = isArray ? "]]" : "]"
    guard pos < bytes.count, bytes[pos] == UInt8(ascii: "]") else {
      throw error(.syntax, "expected '\(close)' to end the table header, found \(found())")
    }
    pos += 1
    if isArray {
      guard pos < bytes.count, bytes[pos] == UInt8(ascii: "]") else {
        throw error(.syntax, "expected ']]' to end the array-of-tables header, found \(found())")
      }
      pos += 1
    }
    section += 1
    layout.sections.append(TOMLLayout.Section(keys: keys, isArrayElement: isArray, end: pos))
    current = isArray ? try tree.appendTable(keys, at: origin) : try tree.openTable(keys, at: origin)
  }

  /// Reads `key = value` into the current table.
  private mutating func parseKeyValue() throws(StrataError) {
    let origin = here
    let keys = try parseKey()
    try expectEquals(after: keys)
    try checkDepth(tree.depth(of: current) + keys.count, at: origin)
    let valueStart = pos
    let value = try parseValue(depth: tree.depth(of: current) + keys.count)
    layout.statementValues[valueStart] = pos
    try tree.set(keys, to: value, in: current, section: section, at: origin)
  }

  /// After a key: blanks, `=`, blanks.
  mutating func expectEquals(after keys: [String]) throws(StrataError) {
    skipBlanks()
    guard pos < bytes.count, bytes[pos] == UInt8(ascii: "=") else {
      throw error(
        .syntax, "expected '=' after the key \(TOMLTree.written(keys)), found \(found()); write key = value")
    }
    pos += 1
    skipBlanks()
  }

  /// A key: one or more bare, "basic" or 'literal' names joined by dots (blanks allowed around them).
  mutating func parseKey() throws(StrataError) -> [String] {
    var keys: [String] = []
    while true {
      guard pos < bytes.count else { throw error(.unexpectedEnd, "expected a key, found end of file") }
      let byte = bytes[pos]
      if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") {
        if pos + 2 < bytes.count, bytes[pos + 1] == byte, bytes[pos + 2] == byte {
          throw error(
            .syntax, "a key cannot be a multi-line string; write it in single quotes or double quotes")
        }
        keys.append(try parseString())
      } else if Self.isBareKeyByte(byte) {
        let start = pos
        while pos < bytes.count, Self.isBareKeyByte(bytes[pos]) { pos += 1 }
        keys.append(String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<pos]), as: UTF8.self))
      } else {
        throw error(
          .syntax,
          "expected a key, found \(found()); a bare key holds only A-Z a-z 0-9 _ -, quote any other name")
      }
      if keys.count > maxDepth {
        throw error(
          .nestingTooDeep, "the key has more than \(maxDepth) parts (the limit ParseOptions.maxDepth)")
      }
      skipBlanks()
      guard pos < bytes.count, bytes[pos] == UInt8(ascii: ".") else { return keys }
      pos += 1
      skipBlanks()
    }
  }

  /// After a statement: blanks, an optional comment, then a line break or the end of the file.
  private mutating func endLine(after what: String) throws(StrataError) {
    skipBlanks()
    if pos < bytes.count, bytes[pos] == UInt8(ascii: "#") { try skipComment() }
    guard pos < bytes.count else { return }
    if bytes[pos] == UInt8(ascii: "\n") || bytes[pos] == UInt8(ascii: "\r") {
      try newline()
      return
    }
    throw error(
      .syntax,
      "expected the end of the line after \(what), found \(found()); put each statement on its own line")
  }

  /// Skips a comment up to (not over) its line break; control characters other than tab are refused.
  mutating func skipComment() throws(StrataError) {
    pos += 1
    while pos < bytes.count {
      let byte = bytes[pos]
      if byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\r") { return }
      if (byte < 0x20 && byte != UInt8(ascii: "\t")) || byte == 0x7F {
        throw error(.syntax, "control character U+\(hex(UInt32(byte), width: 4)) in a comment; remove it")
      }
      pos += 1
    }
  }

  /// Steps over a line break at `pos` (LF or CR LF); a lone CR is refused.
  mutating func newline() throws(StrataError) {
    if bytes[pos] == UInt8(ascii: "\r") {
      guard pos + 1 < bytes.count, bytes[pos + 1] == UInt8(ascii: "\n") else {
        throw error(
          .syntax,
          "a carriage return (U+000D) must be followed by a line feed; save the file with LF or CRLF line ends"
        )
      }
      pos += 1
    }
    pos += 1
    line += 1
    lineStart = pos
  }

  /// Skips spaces and tabs.
  mutating func skipBlanks() {
    while pos < bytes.count, bytes[pos] == UInt8(ascii: " ") || bytes[pos] == UInt8(ascii: "\t") { pos += 1 }
  }

  static func isBareKeyByte(_ byte: UInt8) -> Bool {
    switch byte {
    case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
      UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: "-"):
      true
    default: false
    }
  }

  func checkDepth(_ depth: Int, at origin: Origin) throws(StrataError) {
    if depth > maxDepth {
      let (line, column) = origin.lineAndColumn
      throw StrataError(
        .nestingTooDeep,
        "tables and arrays are nested more than \(maxDepth) deep (the limit ParseOptions.maxDepth)",
        path: path, line: line, column: column)
    }
  }

  /// The origin of `pos`.
  var here: Origin { .file(path: path, line: line, column: column) }

  /// An error at the current position, or at the given one.
  func error(_ code: StrataError.Code, _ message: String, line: Int? = nil, column: Int? = nil) -> StrataError
  {
    StrataError(code, message, path: path, line: line ?? self.line, column: column ?? self.column)
  }

  /// Describes what is at `pos` for "found …": a character, a line break or the end of the file. Words
  /// are not shown: an unquoted value may be a secret.
  func found() -> String {
    guard pos < bytes.count else { return "end of file" }
    let byte = bytes[pos]
    switch byte {
    case UInt8(ascii: "\n"), UInt8(ascii: "\r"): return "a line break"
    case 0x21..<0x7F: return "'\(Character(Unicode.Scalar(byte)))'"
    case UInt8(ascii: " "): return "a space"
    case 0..<0x20, 0x7F: return "control character U+\(hex(UInt32(byte), width: 4))"
    default: return "a non-ASCII character"
    }
  }

  /// Refuses a file that is not UTF-8, naming the first bad byte's line and column.
  private mutating func validateUTF8() throws(StrataError) {
    var offset = 0
    var line = 1
    var lineStart = 0
    while offset < bytes.count {
      let byte = bytes[offset]
      if byte < 0x80 {
        offset += 1
        if byte == UInt8(ascii: "\n") {
          line += 1
          lineStart = offset
        }
        continue
      }
      let end = UTF8Sequence.shape(ofLead: byte).flatMap { (length, second) -> Int? in
        guard offset + length <= bytes.count, second.contains(bytes[offset + 1]) else { return nil }
        for next in 2..<max(length, 2) where bytes[offset + next] & 0xC0 != 0x80 { return nil }
        return offset + length
      }
      guard let end else {
        throw error(
          .invalidUTF8,
          "invalid UTF-8 byte 0x\(hex(UInt32(byte), width: 2)); TOML files are UTF-8: re-save it so",
          line: line, column: offset - lineStart + 1)
      }
      offset = end
    }
  }
}

extension Origin {
  /// The line and column of a file origin; 0 and 0 for any other.
  var lineAndColumn: (line: Int, column: Int) {
    if case .file(_, let line, let column) = self { return (line, column) }
    return (0, 0)
  }
}
