/// JSON (RFC 8259, strict): no comments, no trailing commas, an object at the top.
///
/// Every node gets the line and column of its first byte. A key set twice keeps its first position and
/// its last value, with a warning. `null` means "not set": a member set to `null` is left out, and a
/// `null` array element is dropped with a warning. Writing produces pretty-printed JSON with two-space
/// indentation; dates are written as ISO 8601 strings and data as base64 strings.
struct JSONFormat: ConfigFormat {
  /// The format's name, `json`.
  static let name = "json"
  /// Extensions that select this format: `json`.
  static let fileExtensions = ["json"]

  /// The size in bytes from which a top-level member object's own members are recorded for reloads
  /// that parse only what an edit touched (see `DocumentSplice`).
  var nestedSpanThreshold = 16_384

  /// Creates the format.
  init() {}

  /// Parses a JSON file, which must hold an object at the top.
  /// - Throws: ``StrataError`` with the line and column of the first problem; `nestingTooDeep` past
  ///   `options.maxDepth`.
  func parse(_ bytes: [UInt8], path: String, options: ParseOptions) throws(StrataError) -> Document {
    let result = try JSONParser.parseDocument(bytes, path: path, maxDepth: options.maxDepth)
    // parseDocument rejects anything but an object at the top, so the value is always present.
    let root = result.value ?? .emptyTable(origin: .file(path: path, line: 1, column: 1))
    return Document(path: path, root: root, diagnostics: result.diagnostics)
  }

  /// Serializes a table as pretty-printed JSON ending with a newline.
  /// - Throws: ``StrataError`` `typeMismatch` when the value is not a table, `invalidValue` for an
  ///   infinite or NaN double, `nestingTooDeep` past 512 levels.
  func serialize(_ value: SettingValue) throws(StrataError) -> [UInt8] {
    guard value.isTable else {
      throw StrataError(
        .typeMismatch, "a configuration file must hold a table at the top, found a \(value.typeName)")
    }
    return try JSONSerializer.serialize(value)
  }
}
