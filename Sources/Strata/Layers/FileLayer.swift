/// A layer read from files: a list of main files, then the drop-ins of a `.conf.d` directory.
///
/// Main files that exist are loaded in the order given (a missing one is simply absent). Drop-ins are
/// the files of ``dropInDirectory`` that ``DropInNames`` accepts, sorted by name. As systemd does, a
/// drop-in that is empty or a symlink to `/dev/null` is not loaded, and a drop-in in
/// ``overridingDropInDirectory`` (the system directory, for the vendor layer) replaces the same-named
/// drop-in here, so an empty or `/dev/null` one there masks ours.
public struct FileLayer: Layer {
  /// Where the layer sits.
  public var scope: Scope
  /// A label for messages.
  public var name: String
  /// Main files, loaded in this order when they exist.
  public var files: [String]
  /// A directory of drop-ins, loaded after the main files.
  public var dropInDirectory: String?
  /// A directory whose drop-ins replace same-named ones of ``dropInDirectory``.
  public var overridingDropInDirectory: String?
  /// The extensions a drop-in may have (default: every format's, plus `conf`).
  public var dropInExtensions: [String]
  /// The most drop-ins loaded from the directory; more is an error and only the first ones load.
  public var maxDropIns: Int
  /// Whether files are refused when anyone can write them or someone other than root or this process
  /// owns them (sshd's `StrictModes`). On by default for the vendor and system scopes.
  public var requiresSafePermissions: Bool
  /// Whether a missing main file is an error (for files named explicitly, as on a command line) rather
  /// than an absent layer.
  public var requiresFiles: Bool

  /// Creates a file layer.
  public init(
    scope: Scope, name: String? = nil, files: [String], dropInDirectory: String? = nil,
    overridingDropInDirectory: String? = nil, dropInExtensions: [String] = Formats.allExtensions,
    maxDropIns: Int = 1000, requiresFiles: Bool = false
  ) {
    self.requiresFiles = requiresFiles
    self.requiresSafePermissions = scope == .vendor || scope == .system
    self.scope = scope
    self.name = name ?? scope.description
    self.files = files
    self.dropInDirectory = dropInDirectory
    self.overridingDropInDirectory = overridingDropInDirectory
    self.dropInExtensions = dropInExtensions
    self.maxDropIns = maxDropIns
  }

  /// Reads every file that exists; unreadable or broken files become error diagnostics.
  public func load(_ context: LoadContext) -> LayerContents {
    var contents = LayerContents(paths: files)
    for file in files {
      if requiresFiles, FileSystem.entry(at: context.options.resolvePath(file)) == .missing {
        contents.diagnostics.append(Diagnostic(.error, StrataError(.notFound, "no such file", path: file)))
        continue
      }
      if var dangling = Self.danglingSymlink(file, options: context.options) {
        if requiresFiles { dangling.severity = .error }  // named explicitly: as missing as a missing file
        contents.diagnostics.append(dangling)
        continue
      }
      loadChecked(file, into: &contents, context: context)
    }
    if let dropInDirectory {
      contents.paths.append(dropInDirectory)
      for file in dropIns(in: dropInDirectory, into: &contents, options: context.options) {
        loadChecked(file, into: &contents, context: context)
      }
    }
    return contents
  }

  /// The drop-in paths of `directory` to load, in order.
  private func dropIns(in directory: String, into contents: inout LayerContents, options: ParseOptions)
    -> [String]
  {
    let names: [String]
    do {
      guard
        let listed = try FileSystem.contents(
          ofDirectory: options.resolvePath(directory), reportedAs: directory)
      else { return [] }
      if requiresSafePermissions,
        let problem = FilePermissions.problem(
          withSystemFile: options.resolvePath(directory), reportedAs: directory)
      {
        contents.diagnostics.append(Diagnostic(.error, problem))
        return []
      }
      names = listed
    } catch {
      contents.diagnostics.append(Diagnostic(.error, error))
      return []
    }
    var overridden: Set<String> = []
    if let overridingDropInDirectory {
      let resolved = options.resolvePath(overridingDropInDirectory)
      overridden = Set(
        (try? FileSystem.contents(ofDirectory: resolved, reportedAs: overridingDropInDirectory)) ?? [])
    }
    var paths: [String] = []
    for name in DropInNames.sorted(names, extensions: dropInExtensions) where !overridden.contains(name) {
      let path = joinPath(directory, name)
      if Self.isMask(options.resolvePath(path)) { continue }
      if let dangling = Self.danglingSymlink(path, options: options) {
        contents.diagnostics.append(dangling)
        continue
      }
      if paths.count == maxDropIns {
        contents.diagnostics.append(
          Diagnostic(
            .error,
            StrataError(
              .tooManyFiles, "more than \(maxDropIns) drop-ins; the rest (from \(name) on) are not loaded",
              path: directory)))
        break
      }
      paths.append(path)
    }
    return paths
  }

  /// Whether a drop-in masks rather than configures: an empty regular file, or a symlink to `/dev/null`.
  /// (A FIFO or device also reports size 0; it is not a mask, and reading refuses it.)
  static func isMask(_ resolvedPath: String) -> Bool {
    if FileSystem.entry(at: resolvedPath) == .symlink, FileSystem.symlinkTarget(resolvedPath) == "/dev/null" {
      return true
    }
    return FileSystem.isRegularFile(resolvedPath) && FileSystem.size(of: resolvedPath) == 0
  }

  /// A warning for a config path that is a symlink to nothing: the file is treated as absent, but a
  /// link that points nowhere is usually a mistake (a package removed, a typo), so it is reported with
  /// its target rather than silently ignored.
  static func danglingSymlink(_ path: String, options: ParseOptions) -> Diagnostic? {
    let resolved = options.resolvePath(path)
    guard FileSystem.isDanglingSymlink(resolved) else { return nil }
    let target = FileSystem.symlinkTarget(resolved) ?? "?"
    return Diagnostic(
      .warning,
      StrataError(
        .notFound, "is a symlink to '\(target)', which does not exist; the file is not loaded", path: path))
  }

  /// Loads one file, refusing it first if its permissions are unsafe and the layer requires safe ones.
  private func loadChecked(_ path: String, into contents: inout LayerContents, context: LoadContext) {
    if requiresSafePermissions,
      let problem = FilePermissions.problem(
        withSystemFile: context.options.resolvePath(path), reportedAs: path)
    {
      contents.diagnostics.append(Diagnostic(.error, problem))
      return
    }
    Self.loadFile(path, into: &contents, options: context.options, cache: context.cache)
  }

  /// Loads one file into `contents`. An empty main file is an empty document, not a syntax error, so
  /// that `: > file` clears a layer as it does for systemd; a file of only whitespace (`echo > file`) is
  /// empty in the same way, in every format. With a cache, an unchanged file reuses its
  /// document, and a file that no longer parses keeps its last good one (the error is still reported).
  static func loadFile(
    _ path: String, into contents: inout LayerContents, options: ParseOptions, cache: DocumentCache?
  ) {
    do {
      guard let format = Formats.format(forPath: path) else {
        _ = try Formats.load(path: path, options: options)  // throws the unknown-type error
        return
      }
      guard
        let bytes = try FileReader.read(
          options.resolvePath(path), reportedAs: path, limit: options.maxFileSize)
      else {
        cache?.remove(path)
        return
      }
      let hash = ContentHash(bytes)
      if let cached = cache?.lookup(path), cached.hash == hash, cached.document.includedFiles.isEmpty {
        append(cached.document, to: &contents)
        return
      }
      var document = Document(path: path, root: .emptyTable(origin: .file(path: path, line: 0, column: 0)))
      if !Formats.isBlank(bytes) {
        do {
          document = try format.parse(bytes, path: path, options: options)
        } catch {
          contents.diagnostics.append(Diagnostic(.error, error))
          // Keep the last good document: the rest of the stack updates, and the next edit that parses
          // wins.
          if let lastGood = cache?.lookup(path) { append(lastGood.document, to: &contents) }
          return
        }
      }
      cache?.store(DocumentCache.Entry(hash: hash, document: document), for: path)
      append(document, to: &contents)
    } catch {
      contents.diagnostics.append(Diagnostic(.error, error))
    }
  }

  private static func append(_ document: Document, to contents: inout LayerContents) {
    contents.diagnostics += document.diagnostics
    contents.paths += document.includedFiles
    contents.documents.append(document)
  }
}
