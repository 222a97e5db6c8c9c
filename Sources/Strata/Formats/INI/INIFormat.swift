/// INI files: `[section]` / `[a.b]` / git's `[remote "origin"]` headers, `key = value` and `key: value`
/// lines, quoted values, `key[]` arrays, bare flags, and `!include` / `!includedir` directives.
///
/// Every value is a string; typed conversion happens later, against the declared settings. The full
/// dialect, and where it differs from Python's `configparser`, is in <doc:INIDialect>.
///
/// <!-- snippet: Tests/StrataTests/Formats/FormatSymbolSnippets.swift#INIFormat -->
/// ```swift
/// let document = try INIFormat().parse(bytes, path: "/etc/demo/demo.ini", options: ParseOptions())
/// let port = document.root.value(at: "server.port")  // "8080" from `[server]` / `port = 8080`
/// ```
struct INIFormat: ConfigFormat {
  /// The format's name, `ini`.
  static let name = "ini"
  /// Extensions that select this format: `ini`, `conf`, `cfg`. (`!includedir` also reads MySQL's `.cnf`.)
  static let fileExtensions = ["ini", "conf", "cfg", "cnf"]

  /// Creates the format.
  init() {}

  /// Parses a file and everything it includes.
  ///
  /// Included files are read from `options.resolvePath(path)`; origins and errors use the path as written
  /// (joined to the including file's directory). Each file read is listed in `includedFiles`.
  func parse(_ bytes: [UInt8], path: String, options: ParseOptions) throws(StrataError) -> Document {
    let session = INIParseSession(path: path, options: options)
    try session.parseFile(bytes, path: path)
    return Document(
      path: path, root: session.tree.root.build(), diagnostics: session.tree.diagnostics.all,
      includedFiles: session.includedFiles)
  }

  /// Serializes a tree: top-level scalars, then a section per table; arrays of scalars as `key[] = v`.
  ///
  /// Throws `typeMismatch` for what INI cannot express: arrays of tables, nested arrays, empty arrays.
  func serialize(_ value: SettingValue) throws(StrataError) -> [UInt8] {
    try INISerializer.serialize(value)
  }
}
