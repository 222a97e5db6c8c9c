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
    if FileLayer.isBlank(bytes) {  // as a layer reads it: empty in every format
      return Document(path: path, root: .emptyTable(origin: .file(path: path, line: 0, column: 0)))
    }
    return try format.parse(bytes, path: path, options: options)
  }

  /// The extension of the last path component, lower-cased, without the dot; `nil` if there is none.
  ///
  /// Works on the UTF-8 bytes (it runs for every file and drop-in name of every reload), splitting at
  /// `/` bytes as the kernel does; trailing slashes are ignored, as the last component is meant.
  static func fileExtension(of path: String) -> String? {
    let name = lastComponent(of: path)
    guard let dot = name.lastIndex(of: UInt8(ascii: ".")), dot != name.startIndex else { return nil }
    return lowercased(name[name.index(after: dot)...])
  }

  /// For a dotfile with no other dot (`.env`), the name after the dot, lower-cased; else `nil`.
  static func dotfileExtension(of path: String) -> String? {
    let name = lastComponent(of: path)
    guard name.first == UInt8(ascii: "."), name.count > 1 else { return nil }
    let rest = name.dropFirst()
    guard !rest.contains(UInt8(ascii: ".")) else { return nil }
    return lowercased(rest)
  }

  /// The bytes of the last non-empty component (`b.ini` of `/a/b.ini/`), or all of `path` when it has
  /// none (`/`, the empty path).
  private static func lastComponent(of path: String) -> Substring.UTF8View {
    let utf8 = path.utf8
    let slash = UInt8(ascii: "/")
    var end = utf8.endIndex
    while end > utf8.startIndex, utf8[utf8.index(before: end)] == slash { end = utf8.index(before: end) }
    guard end > utf8.startIndex else { return path[...].utf8 }
    var start = end
    while start > utf8.startIndex, utf8[utf8.index(before: start)] != slash {
      start = utf8.index(before: start)
    }
    // Both ends sit next to a `/` byte or at an end of the string, so on scalar boundaries.
    return path[start..<end].utf8
  }

  /// `bytes` as a string, lower-cased; without Unicode case mapping when they are lower-case ASCII
  /// already (`ini`, `json`).
  private static func lowercased(_ bytes: Substring.UTF8View.SubSequence) -> String {
    let text = String(decoding: bytes, as: UTF8.self)
    let isLowerASCII = bytes.allSatisfy { $0 < 0x80 && !(UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0) }
    return isLowerASCII ? text : text.lowercased()
  }
}
