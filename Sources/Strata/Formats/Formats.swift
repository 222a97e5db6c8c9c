/// The formats Strata knows, and how a file's extension selects one.
public enum Formats {
  /// Every built-in format.
  public static let all: [any ConfigFormat] = [JSONFormat(), PropertyListFormat(), INIFormat()]

  /// The format for a path, chosen by its extension (case-insensitive), or `nil`.
  public static func format(forPath path: String) -> (any ConfigFormat)? {
    guard let ext = fileExtension(of: path) else { return nil }
    return all.first { type(of: $0).fileExtensions.contains(ext) }
  }

  /// The format with the given name (`json`, `plist`, `ini`), or `nil`.
  public static func format(named name: String) -> (any ConfigFormat)? {
    all.first { type(of: $0).name == name.lowercased() }
  }

  /// Every extension that selects some format.
  public static var allExtensions: [String] { all.flatMap { type(of: $0).fileExtensions } }

  /// Reads and parses a file, choosing the format by extension unless one is given. A file that is empty
  /// or holds only blanks and line breaks is an empty document in every format, as in a layer.
  /// - Parameters:
  ///   - path: the path as reported in origins (before `options.resolvePath`).
  ///   - options: limits; the file is read from `options.resolvePath(path)`.
  ///   - format: the file's format, for a name that does not say (`my.cnf.fallback`, `jail.local`);
  ///     `nil`: by extension.
  /// - Returns: the document, or `nil` when the file does not exist.
  /// - Throws: ``StrataError`` when the file cannot be read or parsed, or its format is unknown.
  public static func load(
    path: String, options: ParseOptions = ParseOptions(), format: (any ConfigFormat)? = nil
  ) throws(StrataError) -> Document? {
    guard let format = format ?? self.format(forPath: path) else { throw unknownType(path) }
    guard
      let bytes = try FileReader.read(options.resolvePath(path), reportedAs: path, limit: options.maxFileSize)
    else { return nil }
    if FileLayer.isBlank(bytes) {  // as a layer reads it: empty in every format
      return Document(path: path, root: .emptyTable(origin: .file(path: path, line: 0, column: 0)))
    }
    return try format.parse(bytes, path: path, options: options)
  }

  /// The error for a file whose name selects no format.
  static func unknownType(_ path: String) -> StrataError {
    StrataError(
      .unsupportedFormat,
      "unknown file type; expected one of: \(allExtensions.map { "." + $0 }.joined(separator: ", ")) "
        + "(or name the format: --input-format ini|json|plist)",
      path: path)
  }

  /// The extension of the last path component, lower-cased, without the dot; `nil` if there is none.
  static func fileExtension(of path: String) -> String? {
    let name = path.split(separator: "/").last.map(String.init) ?? path
    guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return nil }
    return String(name[name.index(after: dot)...]).lowercased()
  }
}
