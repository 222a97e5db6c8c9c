import StrataPlatform

/// The state of one INI parse across the file and everything it includes: the tree, the files read,
/// and the chain of files being read (to find cycles).
final class INIParseSession {
  let options: ParseOptions
  let tree: INITreeBuilder
  private(set) var includedFiles: [String] = []
  /// The files being read, outermost first: as reported, and lexically normalized for comparison.
  private var active: [(path: String, key: String)] = []
  /// The bytes of every file read so far, the first one included: one inclusion of a big file 250
  /// times over must cost what one file may, not 250 of them.
  private var bytesRead = 0
  /// The directories includes may read from, real paths (symlinks resolved): the first file's
  /// directory and ``ParseOptions/includeDirectories``. Computed when the first include needs them.
  private lazy var allowedDirectories: [String] = {
    let first = active.first?.path ?? ""
    let own = Self.directory(of: first).isEmpty ? "." : Self.directory(of: first)
    // A directory that does not exist yet is taken as written: nothing inside it exists either.
    return ([own] + options.includeDirectories).map { directory in
      let resolved = options.resolvePath(directory)
      return Self.realPath(resolved) ?? Self.normalize(Self.absolute(resolved))
    }
  }()

  /// Extensions `!includedir` reads: INI's, MySQL's `.cnf` among them.
  static let directoryExtensions = INIFormat.fileExtensions

  init(path: String, options: ParseOptions) {
    self.options = options
    tree = INITreeBuilder(rootOrigin: .file(path: path, line: 0, column: 0), maxDepth: options.maxDepth)
  }

  /// Parses one file's bytes into the tree.
  func parseFile(_ bytes: [UInt8], path: String) throws(StrataError) {
    bytesRead += bytes.count
    active.append((path, Self.normalize(path)))
    defer { active.removeLast() }
    let source = SourceText(path: path, bytes: bytes)
    try source.bytes.withUnsafeBufferPointer { (buffer) throws(StrataError) in
      try INIFileParser.run(buffer, source: source, session: self)
    }
  }

  /// `!include FILE`, relative to the including file's directory.
  func include(_ written: String, from parser: INIFileParser, at offset: Int) throws(StrataError) {
    let file = Self.normalize(Self.join(Self.directory(of: parser.path), written))
    try checkInsideTree(file, from: parser, at: offset)
    try includeFile(file, from: parser, at: offset)
  }

  /// Refuses a path outside the allowed directories: `!include /etc/shadow` or `../../x` from
  /// `/etc/app/app.ini` must not print another file. The check is on the real path, links resolved,
  /// so a link inside the tree that points out of it is refused too.
  private func checkInsideTree(_ file: String, from parser: INIFileParser, at offset: Int) throws(StrataError)
  {
    let resolved = options.resolvePath(file)
    // A missing file is checked by where it would be, so that what exists outside is not revealed.
    let real = Self.realPath(resolved) ?? Self.normalize(Self.absolute(resolved))
    guard !allowedDirectories.contains(where: { Self.isPath(real, inside: $0) }) else { return }
    let allowed = ([Self.directory(of: active.first?.path ?? "")] + options.includeDirectories)
      .filter { !$0.isEmpty }
    throw parser.error(
      .includeOutsideTree,
      "'\(file)' is outside the configuration's directories (\(allowed.joined(separator: ", "))); "
        + "includes stay inside them unless ParseOptions.includeDirectories names another", at: offset)
  }

  /// `!includedir DIR`: the directory's configuration files in byte order of their names, with the
  /// drop-in rules that skip editor and package-manager leftovers.
  func includeDirectory(_ written: String, from parser: INIFileParser, at offset: Int) throws(StrataError) {
    let directory = Self.normalize(Self.join(Self.directory(of: parser.path), written))
    try checkInsideTree(directory, from: parser, at: offset)
    try checkTrusted(directory, from: parser, at: offset)
    let resolved = options.resolvePath(directory)
    guard let handle = opendir(resolved) else {
      let code = errno
      if code == ENOENT || code == ENOTDIR {
        throw parser.error(.notFound, "the directory '\(directory)' to include does not exist", at: offset)
      }
      throw parser.error(
        .unreadable, "cannot read the directory '\(directory)': \(FileReader.describe(errno: code))",
        at: offset)
    }
    var names: [String] = []
    while let entry = readdir(handle) {
      let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
        String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
      }
      names.append(name)
    }
    closedir(handle)
    for name in DropInNames.sorted(names, extensions: Self.directoryExtensions) {
      let file = Self.join(directory, name)
      var info = stat()
      // A subdirectory named like a drop-in (`x.conf/`) is not a file to read.
      if stat(options.resolvePath(file), &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR { continue }
      try checkInsideTree(file, from: parser, at: offset)  // a link in the directory may point out
      try includeFile(file, from: parser, at: offset)
    }
  }

  private func includeFile(_ file: String, from parser: INIFileParser, at offset: Int) throws(StrataError) {
    let key = Self.normalize(file)
    if active.contains(where: { $0.key == key }) {
      let chain = (active.map(\.path) + [file]).joined(separator: " → ")
      throw parser.error(.includeCycle, "include cycle: \(chain)", at: offset)
    }
    if includedFiles.count >= options.maxIncludedFiles {
      throw parser.error(
        .tooManyFiles, "more than \(options.maxIncludedFiles) included files (while including '\(file)')",
        at: offset)
    }
    try checkTrusted(file, from: parser, at: offset)
    guard
      let bytes = try FileReader.read(options.resolvePath(file), reportedAs: file, limit: options.maxFileSize)
    else {
      throw parser.error(.notFound, "the included file '\(file)' does not exist", at: offset)
    }
    if bytesRead + bytes.count > options.maxFileSize {
      throw parser.error(
        .fileTooLarge,
        "the file and its includes hold over \(options.maxFileSize) bytes in all (each inclusion counts; "
          + "--max-file-size raises the limit)", at: offset)
    }
    includedFiles.append(file)
    try parseFile(bytes, path: file)
  }

  /// Refuses an included file or directory that the including layer would refuse as one of its own
  /// files (see ``FileTrust``), at the directive's position.
  private func checkTrusted(_ path: String, from parser: INIFileParser, at offset: Int) throws(StrataError) {
    guard let problem = options.fileTrust?.problem(with: path, resolvePath: options.resolvePath) else {
      return
    }
    throw parser.error(.insecurePermissions, "'\(path)' is included: \(problem.message)", at: offset)
  }

  /// The real path of an existing file or directory (symlinks and `..` resolved), or `nil`.
  static func realPath(_ path: String) -> String? {
    guard let real = realpath(path.isEmpty ? "." : path, nil) else { return nil }
    defer { free(real) }
    return String(cString: real)
  }

  /// `path` made absolute against the current directory.
  private static func absolute(_ path: String) -> String {
    path.hasPrefix("/") ? path : (realPath(".") ?? "") + "/" + path
  }

  /// Whether `path` is `directory` or lies below it (both normalized).
  static func isPath(_ path: String, inside directory: String) -> Bool {
    directory == "/" || path == directory || path.hasPrefix(directory + "/")
  }

  /// The directory part of a path (`""` for a bare name), to resolve includes against.
  static func directory(of path: String) -> String {
    // On the UTF-8 bytes, as the kernel splits paths: no Character is formed for a path's every byte.
    let utf8 = path.utf8
    guard let slash = utf8.lastIndex(of: UInt8(ascii: "/")) else { return "" }
    return slash == utf8.startIndex ? "/" : String(decoding: utf8[..<slash], as: UTF8.self)
  }

  /// `name` relative to `directory` (unless absolute), without `.` components or doubled slashes.
  static func join(_ directory: String, _ name: String) -> String {
    let full = name.hasPrefix("/") || directory.isEmpty ? name : directory + "/" + name
    let absolute = full.hasPrefix("/")
    let kept = full.split(separator: "/").filter { $0 != "." }
    let joined = kept.joined(separator: "/")
    return absolute ? "/" + joined : (joined.isEmpty ? "." : joined)
  }

  /// `path` with `..` resolved lexically, for comparing paths when looking for cycles.
  ///
  /// Works on the UTF-8 bytes, splitting at each `/` byte as the kernel does (a `/` followed by a
  /// combining mark is a separator here, as on disk). It runs several times for every file a trust check
  /// reads, so it forms no `Character` and allocates only the result.
  static func normalize(_ path: String) -> String {
    var path = path
    return path.withUTF8 { bytes in
      let slash = UInt8(ascii: "/")
      let dot = UInt8(ascii: ".")
      // The kept components, as ranges of `bytes`.
      var parts: [Range<Int>] = []
      var start = 0
      while start < bytes.count {
        var end = start
        while end < bytes.count && bytes[end] != slash { end += 1 }
        let length = end - start
        if length == 0 || (length == 1 && bytes[start] == dot) {
          // An empty or `.` component.
        } else if length == 2 && bytes[start] == dot && bytes[start + 1] == dot, let last = parts.last,
          !(last.count == 2 && bytes[last.lowerBound] == dot && bytes[last.lowerBound + 1] == dot)
        {
          parts.removeLast()
        } else {
          parts.append(start..<end)
        }
        start = end + 1
      }
      let isAbsolute = bytes.first == slash
      var capacity = isAbsolute ? 1 : 0
      for part in parts { capacity += part.count + 1 }
      return String(unsafeUninitializedCapacity: capacity) { output in
        var count = 0
        if isAbsolute {
          output[0] = slash
          count = 1
        }
        for index in parts.indices {
          if index > 0 {
            output[count] = slash
            count += 1
          }
          var byte = parts[index].lowerBound
          while byte < parts[index].upperBound {
            output[count] = bytes[byte]
            count += 1
            byte += 1
          }
        }
        return count
      }
    }
  }
}

extension INIFileParser {
  /// `!include FILE`, `!includedir DIR`; any other `!name` is a warning and the line is skipped.
  /// - Returns: where the next line starts.
  mutating func parseDirective(_ bang: Int, _ end: Int, _ lineEnd: Int) throws(StrataError) -> Int {
    var q = bang + 1
    while q < end && !INIByte.isSpace(bytes[q]) { q += 1 }
    let name = string(bang + 1, q)
    switch name {
    case "include", "includedir":
      let directiveLine = line
      let directiveLineStart = lineStart
      let (argumentText, argLine, argColumn, next) = try parseValue(from: q, end, lineEnd)
      let argument = string(argumentText)
      guard !argument.isEmpty else {
        throw StrataError(
          .syntax, "expected a \(name == "include" ? "file" : "directory") name after '!\(name)'", path: path,
          line: argLine, column: argColumn)
      }
      // Errors point at the directive, even when its argument continued over several lines.
      var atDirective = self
      atDirective.line = directiveLine
      atDirective.lineStart = directiveLineStart
      if name == "include" {
        try session.include(argument, from: atDirective, at: bang)
      } else {
        try session.includeDirectory(argument, from: atDirective, at: bang)
      }
      return next
    case "":
      throw error(.syntax, "expected a directive name after '!' (such as !include)", at: bang + 1)
    default:
      session.tree.diagnostics.append(
        Diagnostic(
          .warning,
          error(
            .unknownDirective, "unknown directive '!\(name)' (known: !include, !includedir); line ignored",
            at: bang)))
      return lineEnd + 1
    }
  }
}
