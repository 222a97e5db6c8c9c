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
    let own = directoryPart(of: active.first?.path ?? "")
    // A directory that does not exist yet is taken as written: nothing inside it exists either.
    return ([own] + options.includeDirectories).map { directory in
      let resolved = options.resolvePath(directory)
      return FileSystem.realPath(resolved) ?? normalizedPath(FileSystem.absolutePath(resolved))
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
    active.append((path, normalizedPath(path)))
    defer { active.removeLast() }
    let source = SourceText(path: path, bytes: bytes)
    try source.bytes.withUnsafeBufferPointer { (buffer) throws(StrataError) in
      try INIFileParser.run(buffer, source: source, session: self)
    }
  }

  /// `!include FILE`, relative to the including file's directory.
  func include(_ written: String, from parser: INIFileParser, at offset: Int) throws(StrataError) {
    let file = normalizedPath(joinRelative(directoryPart(of: parser.path), written))
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
    let real = FileSystem.realPath(resolved) ?? normalizedPath(FileSystem.absolutePath(resolved))
    guard !allowedDirectories.contains(where: { isPath(real, inside: $0) }) else { return }
    let allowed = ([directoryPart(of: active.first?.path ?? "")] + options.includeDirectories)
      .filter { !$0.isEmpty }
    throw parser.error(
      .includeOutsideTree,
      "'\(file)' is outside the configuration's directories (\(allowed.joined(separator: ", "))); "
        + "includes stay inside them unless ParseOptions.includeDirectories names another", at: offset)
  }

  /// `!includedir DIR`: the directory's configuration files in byte order of their names, with the
  /// drop-in rules that skip editor and package-manager leftovers.
  func includeDirectory(_ written: String, from parser: INIFileParser, at offset: Int) throws(StrataError) {
    let directory = normalizedPath(joinRelative(directoryPart(of: parser.path), written))
    try checkInsideTree(directory, from: parser, at: offset)
    try checkTrusted(directory, from: parser, at: offset)
    let names: [String]
    do {
      names = try FileSystem.names(inDirectory: options.resolvePath(directory))
    } catch {
      if error.code == ENOENT || error.code == ENOTDIR {
        throw parser.error(.notFound, "the directory '\(directory)' to include does not exist", at: offset)
      }
      throw parser.error(
        .unreadable, "cannot read the directory '\(directory)': \(FileReader.describe(errno: error.code))",
        at: offset)
    }
    for name in DropInNames.sorted(names, extensions: Self.directoryExtensions) {
      let file = joinRelative(directory, name)
      // A subdirectory named like a drop-in (`x.conf/`) is not a file to read.
      if FileSystem.isDirectory(options.resolvePath(file)) { continue }
      try checkInsideTree(file, from: parser, at: offset)  // a link in the directory may point out
      try includeFile(file, from: parser, at: offset)
    }
  }

  private func includeFile(_ file: String, from parser: INIFileParser, at offset: Int) throws(StrataError) {
    let key = normalizedPath(file)
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
