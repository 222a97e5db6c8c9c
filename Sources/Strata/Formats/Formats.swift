/// Loading one file by its name (what `config-dump --schema` and the tests do; a store reads files through
/// its layers), and the file-name arithmetic the formats are chosen by.
package enum Formats {
  /// Reads and parses a file, choosing the format by extension unless one is given. A file that is empty
  /// or holds only blanks and line breaks is an empty document in every format, as in a layer.
  /// - Parameters:
  ///   - path: the path as reported in origins (before `options.resolvePath`).
  ///   - options: limits; the file is read from `options.resolvePath(path)`, and `options.formats`
  ///     chooses its format by extension.
  ///   - format: the file's format, for a name that does not say (`my.cnf.fallback`, `jail.local`);
  ///     `nil`: by extension.
  /// - Returns: the document, or `nil` when the file does not exist.
  /// - Throws: ``StrataError`` when the file cannot be read or parsed, or its format is unknown.
  package static func load(
    path: String, options: ParseOptions = ParseOptions(), format: (any ConfigFormat)? = nil
  ) throws(StrataError) -> Document? {
    guard let format = format ?? options.formats.format(forPath: path) else {
      throw options.formats.unknownType(path)
    }
    guard
      let bytes = try FileReader.read(options.resolvePath(path), reportedAs: path, limit: options.maxFileSize)
    else { return nil }
    if isBlankDocument(bytes) {  // as a layer reads it: empty in every format
      return Document(path: path, root: .emptyTable(origin: .file(path: path, line: 0, column: 0)))
    }
    return try format.parse(bytes, path: path, options: options)
  }
}
