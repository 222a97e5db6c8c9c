/// TOML 1.0 (<https://toml.io/en/v1.0.0>): tables, arrays of tables, inline tables, dotted keys, and
/// typed values with the line and column of each.
///
/// Strings, integers (64-bit), floats, booleans, arrays and tables map to the same kinds of
/// ``SettingValue``. An offset date-time (`1979-05-27T07:32:00Z`) is an instant and becomes a date; a
/// local date-time, local date or local time names no instant and stays text in ISO 8601 form
/// (`1979-05-27T07:32:00`, `1979-05-27`, `07:32:00`). A quoted key with a dot (`"a.b" = 1`) is one name,
/// as everywhere in Strata. Every rule of the specification is enforced, redefinitions included; the
/// mapping, the limits and the edits are in <doc:TOMLFiles>.
///
/// <!-- snippet: Tests/StrataTests/Formats/FormatSymbolSnippets.swift#TOMLFormat -->
/// ```swift
/// let document = try TOMLFormat().parse(bytes, path: "/etc/demo/demo.toml", options: ParseOptions())
/// let port = document.root.value(at: "server.port")  // 8080 from `[server]` / `port = 8080`
/// ```
struct TOMLFormat: ConfigFormat {
  /// The format's name, `toml`.
  static let name = "toml"
  /// Extensions that select this format: `toml`.
  static let fileExtensions = ["toml"]

  /// Creates the format.
  init() {}

  /// Parses a TOML document.
  /// - Throws: ``StrataError`` with the line and column of the first problem: `syntax`, `invalidNumber`,
  ///   `invalidEscape`, `invalidValue` (a date that does not exist), `duplicateKey` (a key or table
  ///   defined twice), `invalidUTF8`; `nestingTooDeep` past `options.maxDepth`, `tooManyValues` past
  ///   `options.maxValues`, `fileTooLarge` past `options.maxFileSize`.
  func parse(_ bytes: [UInt8], path: String, options: ParseOptions) throws(StrataError) -> Document {
    Document(path: path, root: try TOMLParser.parse(bytes, path: path, options: options))
  }

  /// Serializes a table as TOML: scalars and arrays first, then `[tables]` and `[[arrays of tables]]`.
  /// - Throws: ``StrataError`` `typeMismatch` when the value is not a table or holds an integer above
  ///   `Int.max`, `nestingTooDeep` past 512 levels.
  func serialize(_ value: SettingValue) throws(StrataError) -> [UInt8] {
    try TOMLSerializer.serialize(value)
  }
}
