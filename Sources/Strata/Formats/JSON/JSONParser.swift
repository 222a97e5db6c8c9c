/// A strict RFC 8259 parser over raw bytes that records the line and column of every node.
///
/// The parser is iterative: containers live on explicit stacks rather than the call stack, so a file
/// of 100,000 opening brackets fails with `nestingTooDeep` instead of overflowing a thread's stack.
///
/// JSON `null` has no counterpart in ``SettingValue``. A member set to `null` is left out of its table
/// (as JSON Merge Patch reads it: the key is unset), and a `null` array element is dropped with a
/// warning, since silently shifting indices would surprise.
struct JSONParser {
  /// What a parse produced: the value (`nil` for a top-level `null`) and its warnings.
  struct Result {
    var value: SettingValue?
    var diagnostics: [Diagnostic]
    /// Where each member value of the top-level object lies (its first byte to just past its last), in
    /// table order, when asked for and when they match the table one to one (no `null` member); see
    /// ``MemberSpans``.
    var memberSpans: MemberSpans? = nil
  }

  /// What a parse of one member value (``parseMember(_:at:line:lineStart:path:maxDepth:)``) produced.
  struct Member {
    var value: SettingValue?
    /// The value's first byte (after the blanks before it).
    var start: Int
    /// Just past the value's last byte.
    var end: Int
    /// Where the value's members lie, when it is an object and a recorder was given.
    var memberSpans: MemberSpans?
    var diagnostics: [Diagnostic]
  }

  /// An open array or object.
  private struct Frame {
    var isObject: Bool
    var line: Int
    var column: Int
    /// For an object: the key whose value is being read, and where the key is.
    var key = ""
    /// The key's ``KeyHash``.
    var keyHash: UInt32 = 0
    var keyLine = 0
    var keyColumn = 0
    /// For an object: where the lines of its keys start in `keyLines`.
    var keyLinesStart = 0
  }

  let bytes: UnsafeBufferPointer<UInt8>
  let path: String
  let maxDepth: Int
  /// The file, when string values may be kept as slices of its bytes (`nil`: each is a `String`).
  var source: SourceText? = nil
  var pos = 0
  var line = 1
  /// The offset of the first byte of the current line; columns are counted from it.
  var lineStart = 0
  var diagnostics = CappedDiagnostics()
  /// The keys read so far, so that a name repeated in every object is made once.
  var keys = KeyInterner()
  /// Where members lie, when asked for.
  var spanRecorder: JSONSpanRecorder? = nil

  /// The 1-based column of `pos`, in UTF-8 bytes.
  var column: Int { pos - lineStart + 1 }

  private init(bytes: UnsafeBufferPointer<UInt8>, path: String, maxDepth: Int) {
    self.bytes = bytes
    self.path = path
    self.maxDepth = maxDepth
  }

  /// Parses any JSON value (JSONTestSuite has top-level scalars).
  /// - Parameters:
  ///   - bytes: the whole text, optionally starting with a UTF-8 byte order mark.
  ///   - path: the path reported in origins and errors.
  ///   - maxDepth: the deepest nesting of arrays and objects accepted.
  static func parseValue(_ bytes: [UInt8], path: String, maxDepth: Int) throws(StrataError) -> Result {
    try parse(bytes, path: path, maxDepth: maxDepth, requireObject: false)
  }

  /// Parses a configuration file, which must hold an object at the top.
  /// - Parameter spanRecorder: records where members lie, so that a later edit inside one of them can
  ///   parse only it again (`nil`: not recorded).
  static func parseDocument(
    _ bytes: [UInt8], path: String, maxDepth: Int, spanRecorder: JSONSpanRecorder? = nil
  ) throws(StrataError) -> Result {
    try parse(bytes, path: path, maxDepth: maxDepth, requireObject: true, spanRecorder: spanRecorder)
  }

  private static func parse(
    _ bytes: [UInt8], path: String, maxDepth: Int, requireObject: Bool, spanRecorder: JSONSpanRecorder? = nil
  ) throws(StrataError) -> Result {
    let source = SourceText(path: path, bytes: bytes)
    return try source.bytes.withUnsafeBufferPointer { (buffer) throws(StrataError) -> Result in
      var parser = JSONParser(bytes: buffer, path: path, maxDepth: maxDepth)
      parser.source = source
      parser.spanRecorder = spanRecorder
      let value = try parser.parseTop(requireObject: requireObject)
      // Tables report duplicates as they close, innermost first; readers expect file order.
      parser.diagnostics.sort { ($0.error.line, $0.error.column) < ($1.error.line, $1.error.column) }
      var result = Result(value: value, diagnostics: parser.diagnostics.all)
      result.memberSpans = parser.spanRecorder?.spans(for: value)
      return result
    }
  }

  /// Parses one value that starts at `start` (after optional whitespace) of a file whose position
  /// `start` is on line `line`, which begins at offset `lineStart`: a member of the top-level object,
  /// parsed again after an edit inside it. The value's end is returned for the caller to check; the
  /// bytes after it are not read.
  ///
  /// - Parameter spanRecorder: records where the value's own members lie (they are its top level here).
  static func parseMember(
    _ bytes: [UInt8], at start: Int, line: Int, lineStart: Int, path: String, maxDepth: Int,
    spanRecorder: JSONSpanRecorder? = nil
  ) throws(StrataError) -> Member {
    try bytes.withUnsafeBufferPointer { (buffer) throws(StrataError) -> Member in
      var parser = JSONParser(bytes: buffer, path: path, maxDepth: maxDepth)
      parser.pos = start
      parser.line = line
      parser.lineStart = lineStart
      parser.spanRecorder = spanRecorder
      parser.skipWhitespace()
      let valueStart = parser.pos
      let value = try parser.parseTree()
      return Member(
        value: value, start: valueStart, end: parser.pos, memberSpans: parser.spanRecorder?.spans(for: value),
        diagnostics: parser.diagnostics.all)
    }
  }

  private mutating func parseTop(requireObject: Bool) throws(StrataError) -> SettingValue? {
    if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF {
      pos = 3
      // Editors do not show the byte order mark, so columns on line 1 start after it.
      lineStart = 3
    }
    skipWhitespace()
    guard pos < bytes.count else {
      throw error(
        .unexpectedEnd,
        requireObject ? "empty file; expected a JSON object" : "empty file; expected a JSON value")
    }
    if requireObject, bytes[pos] != UInt8(ascii: "{"), let kind = kindStarting(at: bytes[pos]) {
      throw error(.syntax, "a configuration file must hold an object at the top, found \(kind)")
    }
    let value = try parseTree()
    skipWhitespace()
    if pos < bytes.count {
      throw error(.syntax, "expected end of file after the top-level value, found \(found())")
    }
    return value
  }

  /// The kind of value a byte starts, for the top-level message; `nil` when it starts none.
  private func kindStarting(at byte: UInt8) -> String? {
    switch byte {
    case UInt8(ascii: "["): "an array"
    case UInt8(ascii: "\""): "a string"
    case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): "a number"
    case UInt8(ascii: "t"), UInt8(ascii: "f"): "a boolean"
    case UInt8(ascii: "n"): "null"
    default: nil
    }
  }

  /// Parses one value with everything nested in it, without recursion.
  ///
  /// Open containers are built in place on stacks, one entry per open level; `keyLines` holds the line
  /// of each key of the open objects (in table order) so that a duplicate can say where it was first set.
  private mutating func parseTree() throws(StrataError) -> SettingValue? {
    var frames: [Frame] = []
    var tables: [TableBuilder] = []
    var arrays: [[SettingValue]] = []
    var keyLines: [Int] = []
    var tableCapacity = 8

    parsing: while true {
      // Here a value must start at `pos` (whitespace already skipped).
      if spanRecorder != nil { spanRecorder!.valueStarts(at: pos, depth: frames.count) }
      let valueLine = line
      let valueColumn = column
      guard pos < bytes.count else { throw error(.unexpectedEnd, "expected a value, found end of file") }
      // Not an Optional: `null` is a flag beside a placeholder, so that moving and dropping a value costs
      // no runtime call to ask an Optional<SettingValue> for its case.
      var value: SettingValue
      var isNull = false
      switch bytes[pos] {
      case UInt8(ascii: "{"):
        try checkDepth(frames.count)
        pos += 1
        skipWhitespace()
        if pos < bytes.count, bytes[pos] == UInt8(ascii: "}") {
          pos += 1
          value = SettingValue(.table(SettingTable()), origin: origin(valueLine, valueColumn))
        } else {
          var frame = Frame(
            isObject: true, line: valueLine, column: valueColumn, keyLinesStart: keyLines.count)
          try parseKey(after: "'{'", into: &frame)
          frames.append(frame)
          tables.append(TableBuilder(capacity: tableCapacity))
          continue
        }
      case UInt8(ascii: "["):
        try checkDepth(frames.count)
        pos += 1
        skipWhitespace()
        if pos < bytes.count, bytes[pos] == UInt8(ascii: "]") {
          pos += 1
          value = SettingValue(.array([]), origin: origin(valueLine, valueColumn))
        } else {
          frames.append(Frame(isObject: false, line: valueLine, column: valueColumn))
          arrays.append([])
          continue
        }
      case UInt8(ascii: "\""):
        value = try parseStringValue(line: valueLine, column: valueColumn)
      case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
        value = SettingValue(try parseNumber(), origin: origin(valueLine, valueColumn))
      case UInt8(ascii: "t"):
        try expectLiteral("true")
        value = SettingValue(.bool(true), origin: origin(valueLine, valueColumn))
      case UInt8(ascii: "f"):
        try expectLiteral("false")
        value = SettingValue(.bool(false), origin: origin(valueLine, valueColumn))
      case UInt8(ascii: "n"):
        try expectLiteral("null")
        value = SettingValue(.bool(false), origin: .codeDefault)
        isNull = true
      default:
        throw error(.syntax, "expected a value, found \(found())")
      }

      // A value is complete: store it in its container, closing every container that ends here.
      while !frames.isEmpty {
        let top = frames.count - 1
        let isObject = frames[top].isObject
        // `consume` moves the value into its container instead of copying it (a retain and a release
        // per node); it is set again below before any other use.
        if isObject {
          if spanRecorder != nil {
            spanRecorder!.memberEnds(
              at: pos, depth: frames.count, isNull: isNull, tableCount: { value.table?.count })
          }
          store(
            consume value, isNull: isNull, in: &tables[tables.count - 1], for: frames[top],
            keyLines: &keyLines)
        } else if !isNull {
          arrays[arrays.count - 1].append(consume value)
        } else {
          diagnostics.append(
            Diagnostic(
              .warning,
              error(
                .invalidValue, "null has no meaning in a configuration; the array element is dropped",
                line: valueLine, column: valueColumn)))
        }
        skipWhitespace()
        guard pos < bytes.count else {
          throw error(
            .unexpectedEnd,
            isObject
              ? "expected ',' or '}' after an object member, found end of file"
              : "expected ',' or ']' after an array element, found end of file")
        }
        let byte = bytes[pos]
        if byte == UInt8(ascii: ",") {
          pos += 1
          skipWhitespace()
          if isObject { try parseKey(after: "','", into: &frames[top]) }
          continue parsing
        }
        let line = frames[top].line
        let column = frames[top].column
        isNull = false
        if isObject {
          guard byte == UInt8(ascii: "}") else {
            throw error(.syntax, "expected ',' or '}' after an object member, found \(found())")
          }
          pos += 1
          tableCapacity = TableBuilder.capacity(after: tables[tables.count - 1].count)
          value = SettingValue(.table(tables[tables.count - 1].build()), origin: origin(line, column))
          tables.removeLast()
          keyLines.removeSubrange(frames[top].keyLinesStart...)
        } else {
          guard byte == UInt8(ascii: "]") else {
            throw error(.syntax, "expected ',' or ']' after an array element, found \(found())")
          }
          pos += 1
          value = SettingValue(.array(arrays.removeLast()), origin: origin(line, column))
        }
        frames.removeLast()
      }
      if frames.isEmpty { return isNull ? nil : value }
    }
  }

  /// Sets a member: the last value wins in the first position, and a repeat gets a warning. `null`
  /// unsets the key.
  private mutating func store(
    _ value: consuming SettingValue, isNull: Bool, in table: inout TableBuilder, for frame: borrowing Frame,
    keyLines: inout [Int]
  ) {
    let firstLine: Int
    if !isNull {
      guard let index = table.set(frame.key, value, hash: frame.keyHash) else {
        keyLines.append(frame.keyLine)
        return
      }
      firstLine = keyLines[frame.keyLinesStart + index]
    } else {
      guard let index = table.position(of: frame.key, hash: frame.keyHash) else { return }
      firstLine = keyLines.remove(at: frame.keyLinesStart + index)
      table.remove(at: index)
    }
    diagnostics.append(
      Diagnostic(
        .warning,
        error(
          .duplicateKey,
          "duplicate key \"\(frame.key)\"; the last value wins (first set at line \(firstLine))",
          line: frame.keyLine, column: frame.keyColumn)))
  }

  private func checkDepth(_ open: Int) throws(StrataError) {
    if open >= maxDepth {
      throw error(.nestingTooDeep, "arrays and objects are nested more than \(maxDepth) deep")
    }
  }

  /// Parses `"key" :` and the whitespace after it into `frame`; `previous` names what came before, for
  /// messages.
  private mutating func parseKey(after previous: String, into frame: inout Frame) throws(StrataError) {
    let keyLine = line
    let keyColumn = column
    guard pos < bytes.count else {
      throw error(.unexpectedEnd, "expected a string key after \(previous), found end of file")
    }
    guard bytes[pos] == UInt8(ascii: "\"") else {
      if previous == "','", bytes[pos] == UInt8(ascii: "}") {
        throw error(
          .syntax, "expected a string key after ',', found '}' (JSON does not allow a trailing comma)")
      }
      throw error(
        .syntax, "expected a string key or '}' after \(previous), found \(found(showingWords: true))")
    }
    let (key, keyHash) = try parseKeyString()
    skipWhitespace()
    guard pos < bytes.count else {
      throw error(.unexpectedEnd, "expected ':' after the key \"\(key)\", found end of file")
    }
    guard bytes[pos] == UInt8(ascii: ":") else {
      throw error(.syntax, "expected ':' after the key \"\(key)\", found \(found())")
    }
    pos += 1
    skipWhitespace()
    frame.key = key
    frame.keyHash = keyHash
    frame.keyLine = keyLine
    frame.keyColumn = keyColumn
  }

  private mutating func expectLiteral(_ literal: StaticString) throws(StrataError) {
    let count = literal.utf8CodeUnitCount
    let matches = literal.withUTF8Buffer { expected in
      pos + count <= bytes.count && (0..<count).allSatisfy { bytes[pos + $0] == expected[$0] }
    }
    guard matches else { throw error(.syntax, "expected a value, found \(found())") }
    pos += count
  }

  mutating func skipWhitespace() {
    while pos < bytes.count {
      switch bytes[pos] {
      case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\r"):
        pos += 1
      case UInt8(ascii: "\n"):
        pos += 1
        line += 1
        lineStart = pos
      default:
        return
      }
    }
  }

  func origin(_ line: Int, _ column: Int) -> Origin {
    .file(path: path, line: line, column: column)
  }

  /// An error at the current position, or at the given one.
  func error(_ code: StrataError.Code, _ message: String, line: Int? = nil, column: Int? = nil) -> StrataError
  {
    StrataError(code, message, path: path, line: line ?? self.line, column: column ?? self.column)
  }

  /// Whether a bare word is one character or looks like a misspelled JSON literal or a literal of another
  /// language, which messages may show.
  private func isLiteralLike(_ word: String) -> Bool {
    let lower = word.lowercased()
    if word.count == 1 { return true }
    if ["true", "false", "null"].contains(where: { $0.hasPrefix(lower) }) { return true }
    return ["nan", "inf", "infinity", "none", "nil", "yes", "no", "on", "off", "undefined"].contains(lower)
  }

  /// Describes what is at `pos`, for "found …" in messages: a character, a raw byte, or a word.
  ///
  /// A word is quoted only when it is one character, or looks like a misspelled literal (`tru`, `NaN`,
  /// `None`), or when `showingWords` (a key's place): anywhere else it may be a value that lost its
  /// quotes — a password — and a message must not carry a secret.
  func found(showingWords: Bool = false) -> String {
    guard pos < bytes.count else { return "end of file" }
    let byte = bytes[pos]
    if isWordByte(byte) {
      var end = pos
      while end < bytes.count, end - pos < 20, isWordByte(bytes[end]) { end += 1 }
      let word = String(decoding: UnsafeBufferPointer(rebasing: bytes[pos..<end]), as: UTF8.self)
      return showingWords || isLiteralLike(word) ? "'\(word)'" : "an unquoted word"
    }
    switch byte {
    case UInt8(ascii: "\n"): return "a line break"
    case 0x20..<0x7F: return "'\(Character(Unicode.Scalar(byte)))'"
    case 0..<0x20, 0x7F: return "control character U+\(hex(UInt32(byte), width: 4))"
    default:
      var end = pos
      if let scalarEnd = try? validatedSequenceEnd(at: pos) { end = scalarEnd }
      guard end > pos else { return "byte 0x\(hex(UInt32(byte), width: 2))" }
      let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[pos..<end]), as: UTF8.self)
      let scalar = text.unicodeScalars.first!.value
      return "'\(text)' (U+\(hex(scalar, width: 4)))"
    }
  }

  private func isWordByte(_ byte: UInt8) -> Bool {
    switch byte {
    case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
      UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"):
      true
    default: false
    }
  }
}

/// Upper-case hexadecimal, zero-padded to `width` digits.
func hex(_ value: UInt32, width: Int) -> String {
  let digits = String(value, radix: 16, uppercase: true)
  return String(repeating: "0", count: max(0, width - digits.count)) + digits
}
