/// A layer read from files: a list of main files, then the drop-ins of a `.conf.d` directory.
///
/// Main files that exist are loaded in the order given (a missing one is simply absent). Drop-ins are
/// the files of the drop-in directory that the drop-in naming rules accept (configuration extensions; no hidden files, editor backups or package-manager leftovers), sorted by name. As systemd does, a
/// drop-in that is empty or a symlink to `/dev/null` is not loaded, and a drop-in in
/// the overriding drop-in directory (the system directory, for the vendor layer) replaces the same-named
/// drop-in here, so an empty or `/dev/null` one there masks ours.
public struct FileLayer: Layer {
  /// Where the layer sits.
  public var scope: Scope
  /// A label for messages.
  public var name: String
  /// Main files, loaded in this order when they exist.
  var files: [String]
  /// A directory of drop-ins, loaded after the main files.
  var dropInDirectory: String?
  /// A directory whose drop-ins replace same-named ones of `dropInDirectory`.
  var overridingDropInDirectory: String?
  /// A profile's drop-ins (``StandardLayout``), loaded after those of `dropInDirectory`.
  var profileDropIns: DropIns?
  /// The extensions a drop-in may have; `nil` (the default): every extension of the registry the
  /// layer loads with (``ParseOptions/formats``).
  var dropInExtensions: [String]?
  /// The most drop-ins loaded from the directory; more is an error and only the first ones load.
  var maxDropIns: Int
  /// Whether files are refused when someone other than root or this process's user could change them
  /// (sshd's `StrictModes`): a file or any directory on its path (from the layer's root, and from `/`
  /// along where links lead) that is owned by another user, writable by anyone (but a sticky directory
  /// such as /tmp), or writable by a group other than root's or this process's; or a symbolic link owned
  /// by another user (the kernel's `protected_symlinks`). Included files and directories too. On by
  /// default for the vendor and system scopes.
  public var requiresSafePermissions: Bool
  /// Whether a missing main file is an error (for files named explicitly, as on a command line) rather
  /// than an absent layer.
  var requiresFiles: Bool
  /// Whether files must belong to this process's user (or root), as git refuses a repository another
  /// user owns (`safe.directory`): a program run as root with `HOME` kept, as `sudo` does, must not
  /// read the invoking user's files. On for the user layer of ``StandardLayout``.
  public var requiresOwnFiles = false
  /// The format of the main files, for names that do not say (`my.cnf.fallback`, fail2ban's
  /// `jail.local`); `nil` (the default): each file's extension chooses.
  var format: (any ConfigFormat)?

  /// Creates a file layer.
  public init(
    scope: Scope, name: String? = nil, files: [String], dropInDirectory: String? = nil,
    overridingDropInDirectory: String? = nil, dropInExtensions: [String]? = nil,
    maxDropIns: Int = 1000, requiresFiles: Bool = false, format: (any ConfigFormat)? = nil
  ) {
    self.requiresFiles = requiresFiles
    self.format = format
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
    // The files of one load share directories: each is checked once per load, never across loads.
    let seen = requiresSafePermissions ? TrustMemo() : nil
    defer { seen?.close() }
    let trust = FileTrust(
      requiresSafePermissions: requiresSafePermissions, requiresOwnFiles: requiresOwnFiles, seen: seen)
    for file in files {
      let resolved = context.options.resolvePath(file)
      let entry = requiresFiles ? FileSystem.entry(at: resolved) : nil
      if entry == .missing && !FileSystem.isHidden(resolved) {
        contents.diagnostics.append(Diagnostic(.error, StrataError(.notFound, "no such file", path: file)))
        continue
      }
      if entry == .symlink, FileReader.kind(at: resolved) == nil {
        // Named explicitly, a link to nothing is as missing as a missing file.
        let target = FileSystem.symlinkTarget(resolved) ?? "?"
        contents.diagnostics.append(
          Diagnostic(
            .error,
            StrataError(
              .notFound, "no such file: a symbolic link to \(target), which does not exist", path: file)))
        continue
      }
      loadChecked(file, format: format, trust: trust, into: &contents, context: context)
    }
    let directories = [dropInDirectory.map { DropIns(directory: $0, overriding: overridingDropInDirectory) }]
    for case let dropIns? in directories + [profileDropIns] {
      contents.paths.append(dropIns.directory)
      // A drop-in added there (a mask, or a same-named replacement) changes which of ours load.
      if let overriding = dropIns.overriding { contents.paths.append(overriding) }
      for file in self.dropIns(in: dropIns, trust: trust, into: &contents, context: context) {
        loadChecked(file, format: nil, trust: trust, into: &contents, context: context)
      }
    }
    return contents
  }

  /// A directory of drop-ins, and the directory whose drop-ins replace same-named ones of it.
  struct DropIns: Sendable {
    var directory: String
    var overriding: String?
  }

  /// The drop-in paths of a directory to load, in order.
  ///
  /// The listing is a unit of its own (``UnitStates``): a listing that fails (`EACCES`, `EMFILE`, a
  /// directory replaced by a file) or a directory that is not trusted now keeps the last good listing,
  /// and a directory that vanished keeps it through the grace period. A drop-in that left the listing
  /// stays through the grace period too (vim's save renames it away for a moment); its own read then
  /// decides, by the same rule.
  private func dropIns(
    in dropIns: DropIns, trust: FileTrust, into contents: inout LayerContents, context: LoadContext
  ) -> [String] {
    let (directory, overridingDropInDirectory) = (dropIns.directory, dropIns.overriding)
    let options = context.options
    let units = context.cache?.units
    let unit = "drop-ins:" + directory
    let lastGood = units?.listing(unit)
    let names: [String]
    do {
      guard
        let listed = try FileSystem.contents(
          ofDirectory: options.resolvePath(directory), reportedAs: directory)
      else {
        guard let units, let lastGood, !lastGood.isEmpty else {
          units?.storeListing(nil, for: unit)
          return []
        }
        switch units.missing(unit) {
        case .pending(let retryAt):
          contents.retry(at: retryAt)
          return lastGood
        case .gone:
          units.storeListing(nil, for: unit)
          return []
        }
      }
      if requiresSafePermissions,
        let problem = FileTrust(requiresSafePermissions: true, requiresOwnFiles: false, seen: trust.seen)
          .problem(with: directory, resolvePath: options.resolvePath)
      {
        contents.diagnostics.append(Diagnostic(.error, problem))
        // What the directory held while it was safe stays, unread: what it holds now is not trusted.
        // A mode fixed back makes no event that names a file: the directory is looked at again.
        guard let units else { return [] }
        contents.retry(at: units.failed(unit))
        for path in lastGood ?? [] {
          if let document = context.cache?.lookup(path)?.document { Self.append(document, to: &contents) }
        }
        return []
      }
      names = listed
    } catch {
      contents.diagnostics.append(Diagnostic(.error, error))
      guard let units else { return [] }
      contents.retry(at: units.failed(unit))
      return lastGood ?? []
    }
    var overridden: Set<String> = []
    if let overridingDropInDirectory {
      let resolved = options.resolvePath(overridingDropInDirectory)
      let overridingUnit = "drop-ins:" + overridingDropInDirectory
      do {
        let listed =
          try FileSystem.contents(ofDirectory: resolved, reportedAs: overridingDropInDirectory) ?? []
        overridden = Set(listed)
        units?.storeListing(listed, for: overridingUnit)
        units?.loaded(overridingUnit)
      } catch {
        // Which of ours the other directory replaces is unknown now: as it last was.
        contents.diagnostics.append(Diagnostic(.error, error))
        overridden = Set(units?.listing(overridingUnit) ?? [])
        if let units { contents.retry(at: units.failed(overridingUnit)) }
      }
    }
    let dropInExtensions = dropInExtensions ?? options.formats.allExtensions
    for name in names.sorted() {
      guard let reason = DropInNames.skipReason(name, extensions: dropInExtensions) else { continue }
      contents.diagnostics.append(
        Diagnostic(.note, StrataError(.skipped, "skipped: \(reason)", path: joinPath(directory, name))))
    }
    var accepted = DropInNames.sorted(names, extensions: dropInExtensions).filter { !overridden.contains($0) }
    if let lastGood {
      // A drop-in that left the listing while its last good document is kept (missing, within the
      // grace) is still read: its own read keeps it or lets it go.
      let listed = Set(accepted)
      let lingering = lastGood.map { String(lastComponent(of: $0)) }.filter { name in
        !listed.contains(name) && !overridden.contains(name)
          && context.cache?.lookup(joinPath(directory, name)) != nil
          && FileSystem.entry(at: options.resolvePath(joinPath(directory, name))) == .missing
      }
      if !lingering.isEmpty {
        accepted = DropInNames.sorted(accepted + lingering, extensions: dropInExtensions)
      }
    }
    units?.loaded(unit)
    var paths: [String] = []
    for name in accepted {
      let path = joinPath(directory, name)
      // An empty drop-in masks; but one with a last good document, emptied or created a moment ago (a
      // rename-away save's new file), is a writer at work: its own read keeps the last good document.
      if Self.isMask(options.resolvePath(path))
        && !(context.cache?.lookup(path) != nil && FileReader.isEmptyAndNew(options.resolvePath(path)))
      {
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
    units?.storeListing(paths, for: unit)
    return paths
  }

  /// Whether a drop-in masks rather than configures: an empty regular file, or a symlink to
  /// `/dev/null`, as systemd documents. Anything else that is empty (a FIFO, a socket, a dangling link)
  /// is loaded, and so reported, instead of silently masking.
  static func isMask(_ resolvedPath: String) -> Bool {
    if FileSystem.entry(at: resolvedPath) == .symlink, FileSystem.symlinkTarget(resolvedPath) == "/dev/null" {
      return true
    }
    return FileSystem.isEmptyRegularFile(resolvedPath)
  }

  /// Loads one file, refusing it first if its permissions are unsafe and the layer requires safe ones.
  private func loadChecked(
    _ path: String, format: (any ConfigFormat)?, trust: FileTrust, into contents: inout LayerContents,
    context: LoadContext
  ) {
    var options = context.options
    // Included files and directories are held to the same rules, checked as the parser reaches them.
    if requiresSafePermissions || requiresOwnFiles { options.fileTrust = trust }
    if let problem = trust.problem(with: path, resolvePath: options.resolvePath) {
      contents.diagnostics.append(Diagnostic(.error, problem))
      // What was read while the file was safe stays; what it holds now is not trusted.
      if let cache = context.cache {
        if let lastGood = cache.lookup(path) { Self.append(lastGood.document, to: &contents) }
        contents.retry(at: cache.units.failed(path))
      }
      return
    }
    Self.loadFile(path, format: format, into: &contents, options: options, cache: context.cache)
  }

  /// Loads one file into `contents`. An empty (or blank) main file is an empty document, not a syntax
  /// error, so that `: > file` clears a layer as it does for systemd. With a cache, an unchanged file reuses its
  /// document, and a file that no longer parses keeps its last good one (the error is still reported).
  static func loadFile(
    _ path: String, format: (any ConfigFormat)? = nil, into contents: inout LayerContents,
    options: ParseOptions, cache: DocumentCache?
  ) {
    do throws(StrataError) {
      guard let format = format ?? options.formats.format(forPath: path) else {
        // `config-dump some/dir`: say what it is, not that its "type" is unknown.
        if let kind = FileReader.kind(at: options.resolvePath(path)), kind != "a regular file" {
          throw StrataError(.unreadable, "not a regular file: \(kind)", path: path)
        }
        throw options.formats.unknownType(path)
      }
      let cached = cache?.lookup(path)
      // With a last good document to keep, a file someone has open for writing (an in-place write, a
      // rename-away save between its create and its close) is not read now, and no writer can open it
      // while it is read (where the kernel can tell: ``WriteLease``).
      var outcome = try FileReader.read(
        options.resolvePath(path), reportedAs: path, limit: options.maxFileSize,
        unlessBeingWritten: cached != nil)
      if case .bytes = outcome, cached != nil { cache?.units.noWriter(path) }
      if case .beingWritten = outcome, let cache, let cached {
        if let retryAt = cache.units.waitForWriter(path) {
          append(cached.document, to: &contents)
          contents.retry(at: retryAt)
          return
        }
        // A writer that keeps the file open for good: read it as it is.
        outcome = try FileReader.read(
          options.resolvePath(path), reportedAs: path, limit: options.maxFileSize, unlessBeingWritten: false)
      }
      guard case .bytes(let bytes, _) = outcome else {
        if let cache, let lastGood = cached {
          // Missing now is not gone yet: vim's save, a deploy tool's rename and a volume's swap each
          // leave a moment with no file, whatever made the store read it then.
          if case .pending(let retryAt) = cache.units.missing(path) {
            append(lastGood.document, to: &contents)
            contents.retry(at: retryAt)
            return
          }
        }
        cache?.remove(path)
        cache?.units.loaded(path)
        let resolved = options.resolvePath(path)
        if FileSystem.entry(at: resolved) == .symlink {
          contents.diagnostics.append(
            Diagnostic(
              .warning,
              StrataError(
                .notFound,
                "a symbolic link to \(FileSystem.symlinkTarget(resolved) ?? "?"), which does not exist; "
                  + "the file is treated as absent", path: path)))
        }
        return
      }
      if case .bytes(_, noWriter: false) = outcome, let cache, let cached,
        let retryAt = WritesInProgress.retryTime(
          for: FileSystem.absolutePath(options.resolvePath(path)), now: cache.units.clock())
      {
        // Created or written and not closed yet (a rename-away save between its create and its close,
        // a writer mid-way through): read again once complete; its close also signals.
        append(cached.document, to: &contents)
        contents.retry(at: retryAt)
        return
      }
      if let cached, cached.document.includedFiles.isEmpty, ByteComparison.equal(cached.bytes, bytes) {
        cache?.units.loaded(path)
        append(cached.document, to: &contents)
        return
      }
      var document = Document(path: path, root: .emptyTable(origin: .file(path: path, line: 0, column: 0)))
      var spans: MemberSpans?
      if !isBlankDocument(bytes) {
        do {
          if cache == nil {
            document = try format.parse(bytes, path: path, options: options)
          } else {
            (document, spans) = try parse(bytes, path: path, format: format, cached: cached, options: options)
          }
        } catch {
          contents.diagnostics.append(Diagnostic(.error, error))
          // Keep the last good document: the rest of the stack updates, and the file is read again
          // (a writer caught mid-write finishes; the next edit that parses wins).
          if let cached { append(cached.document, to: &contents) }
          if let cache { contents.retry(at: cache.units.failed(path)) }
          return
        }
      }
      cache?.store(DocumentCache.Entry(bytes: bytes, document: document, spans: spans), for: path)
      cache?.units.loaded(path)
      append(document, to: &contents)
    } catch {
      // A file that grew past the limit, became unreadable (`EACCES`, `EMFILE`, `EIO`), or was replaced
      // by something that is not a regular file keeps its last good document, as a syntax error does,
      // and is read again with a backoff; only a confirmed deletion (`read` returning nil above, for the
      // whole grace period) removes its values.
      contents.diagnostics.append(Diagnostic(.error, error))
      if let cache {
        if let lastGood = cache.lookup(path) { append(lastGood.document, to: &contents) }
        contents.retry(at: cache.units.failed(path))
      }
    }
  }

  /// Parses a file for a cache: a format that can splice parses only the member an edit falls in
  /// (``DocumentSplice``) when it can, and records where the members lie for the next edit.
  private static func parse(
    _ bytes: [UInt8], path: String, format: any ConfigFormat, cached: DocumentCache.Entry?,
    options: ParseOptions
  ) throws(StrataError) -> (Document, MemberSpans?) {
    guard let spliceable = format as? any SpliceableFormat else {
      return (try format.parse(bytes, path: path, options: options), nil)
    }
    return try parse(bytes, path: path, spliceable: spliceable, cached: cached, options: options)
  }

  private static func parse<Format: SpliceableFormat>(
    _ bytes: [UInt8], path: String, spliceable format: Format, cached: DocumentCache.Entry?,
    options: ParseOptions
  ) throws(StrataError) -> (Document, MemberSpans?) {
    if let cached, let spans = cached.spans,
      let spliced = DocumentSplice.splice(
        cached.document, spans: spans, oldBytes: cached.bytes, newBytes: bytes, format: format,
        options: options)
    {
      return spliced
    }
    return try format.parseRecordingSpans(bytes, path: path, options: options)
  }

  private static func append(_ document: Document, to contents: inout LayerContents) {
    contents.diagnostics += document.diagnostics
    contents.paths += document.includedFiles
    contents.documents.append(document)
  }
}
