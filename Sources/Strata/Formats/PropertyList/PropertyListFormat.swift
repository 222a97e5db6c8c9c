/// Apple property lists, XML and binary (`bplist00`), told apart by content rather than extension.
///
/// <!-- snippet: Tests/StrataTests/Formats/FormatSymbolSnippets.swift#PropertyListFormat -->
/// ```swift
/// let document = try PropertyListFormat().parse(
///   bytes, path: "/etc/demo/demo.plist", options: ParseOptions())
/// let xml = try PropertyListFormat().serialize(document.root)
/// let binary = try PropertyListFormat().serializeBinary(document.root)
/// ```
///
/// Reading: a file that starts with `bplist00` is binary, anything else is XML. The top level must be a
/// `<dict>`. XML nodes carry the line and column of their opening `<`; binary nodes have no positions and
/// carry line 0, column 0. Duplicate keys keep the last value and add a `duplicateKey` warning.
///
/// Errors: XML grammar problems (mismatched or unterminated tags, stray text, bad entities) are `syntax`
/// or `unexpectedEnd`; structural ones (unknown elements, a `<key>` without a value, bad base64 or dates)
/// and every problem in a binary file are `invalidPropertyList`; integers outside the 64-bit range and
/// malformed numbers are `invalidNumber`; nesting beyond `ParseOptions.maxDepth` is `nestingTooDeep`.
///
/// Writing: ``serialize(_:)`` writes XML the way Apple's tools do (tabs, DOCTYPE, keys in table order).
/// XML dates hold whole seconds, so fractional seconds are truncated (toward the past) when writing XML;
/// binary dates keep full precision. Strings with control characters other than tab, newline and
/// carriage return, and dates outside the years 0000 to 9999, cannot be written as XML; write them with
/// ``serializeBinary(_:)``.
struct PropertyListFormat: ConfigFormat {
  /// The format's name, `plist`.
  static let name = "plist"
  /// Extensions that select this format: `plist`.
  static let fileExtensions = ["plist"]

  /// Creates the format.
  init() {}

  /// Parses an XML or binary property list whose top level is a dict.
  /// - Parameters:
  ///   - bytes: the whole file.
  ///   - path: the path reported in origins and errors.
  ///   - options: limits; `maxDepth` bounds the nesting of arrays and dicts.
  /// - Throws: ``StrataError`` with the line and column of the problem (XML) or the byte offset in its
  ///   message (binary).
  func parse(_ bytes: [UInt8], path: String, options: ParseOptions) throws(StrataError) -> Document {
    let source = SourceText(path: path, bytes: bytes)
    return try source.bytes.withUnsafeBufferPointer { (buffer) throws(StrataError) -> Document in
      let root: SettingValue
      let diagnostics: [Diagnostic]
      if buffer.starts(with: "bplist".utf8) {
        guard buffer.starts(with: "bplist00".utf8) else {
          let version = String(decoding: buffer.prefix(8), as: UTF8.self)
          throw StrataError(
            .invalidPropertyList, "unsupported binary plist version \"\(version)\"; only bplist00 is read",
            path: path)
        }
        (root, diagnostics) = try BinaryPropertyListParser.parse(
          buffer, path: path, maxDepth: options.maxDepth, maxValues: options.maxValues, source: source)
      } else {
        (root, diagnostics) = try XMLPropertyListParser.parse(
          buffer, path: path, maxDepth: options.maxDepth, source: source)
      }
      guard root.isTable else {
        var (line, column) = (0, 0)
        if case .file(_, let l, let c) = root.origin { (line, column) = (l, c) }
        throw StrataError(
          .syntax, "the top level of a property list must be a dict, not \(root.propertyListTypeName)",
          path: path, line: line, column: column)
      }
      return Document(path: path, root: root, diagnostics: diagnostics)
    }
  }

  /// Serializes a tree (a table at the top) as an XML property list in Apple's layout.
  /// - Throws: ``StrataError`` `typeMismatch` when the top is not a table, `invalidValue` for a string
  ///   or a date (outside the years 0000 to 9999) that XML cannot hold, `nestingTooDeep` beyond 512
  ///   levels.
  func serialize(_ value: SettingValue) throws(StrataError) -> [UInt8] {
    try Self.requireTable(value)
    return try XMLPropertyListSerializer.serialize(value)
  }

  /// Serializes a tree (a table at the top) as a binary property list (`bplist00`).
  ///
  /// Equal values are written once each time they occur; nothing is shared between them.
  /// - Throws: ``StrataError`` `typeMismatch` when the top is not a table, `nestingTooDeep` beyond 512
  ///   levels.
  func serializeBinary(_ value: SettingValue) throws(StrataError) -> [UInt8] {
    try Self.requireTable(value)
    return try BinaryPropertyListSerializer.serialize(value)
  }

  private static func requireTable(_ value: SettingValue) throws(StrataError) {
    guard value.isTable else {
      throw StrataError(.typeMismatch, "a property list's top level must be a table, not \(value.typeName)")
    }
  }

  /// The deepest tree the serializers write: what `ParseOptions` reads back by default.
  static let maxSerializedDepth = ParseOptions().maxDepth
}

extension SettingValue {
  /// The property list element name of the node's type, for messages.
  var propertyListTypeName: String {
    switch kind {
    case .string: "string"
    case .integer, .unsignedInteger: "integer"
    case .double: "real"
    case .bool: "bool"
    case .date: "date"
    case .data: "data"
    case .array: "array"
    case .table: "dict"
    }
  }
}
