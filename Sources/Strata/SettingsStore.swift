import FoundationEssentials
import Synchronization

/// The hub: owns the layers, the current ``Snapshot``, the registered settings, and writes.
///
/// ```swift
/// let store = SettingsStore(app: "myserver")   // /usr/lib, /etc (+ conf.d), ~/.config, MYSERVER_*
/// let server = ServerSettings(store: store)
/// ```
///
/// Error policy, once for the whole library: building a store never throws. A file that cannot be read
/// or parsed becomes an error in ``diagnostics`` and keeps its last good document; a value that does not
/// convert to its setting's type is skipped for the next lower layer's (then the default) and reported
/// the same way. Only explicit operations on one thing — a write, a required key — throw
/// ``StrataError``.
public final class SettingsStore: Sendable {
  /// The store that `SettingsGroup()` binds to when no store is passed.
  @TaskLocal public static var current: SettingsStore?

  /// The snapshot pinned by ``SettingsGroup/withConsistentSnapshot(_:)`` for this task.
  @TaskLocal static var pinned: [ObjectIdentifier: Snapshot] = [:]

  let stack: LayerStack
  let published: Locked<Snapshot>
  /// The generation of ``snapshot``, readable without a lock: cached setting reads compare against it.
  @usableFromInline let generationCounter = Atomic<Int>(0)
  /// How many ``SettingsGroup/withConsistentSnapshot(_:)`` calls are running; reads look for a pinned
  /// snapshot only when it is not zero.
  @usableFromInline let pinCount = Atomic<Int>(0)
  let state: Locked<State>
  /// Serializes rebuilds, so that snapshots are published in the order their files were read. Only
  /// loaders take it; reads never do.
  let rebuildLock = Locked(0)  // the count of rebuilds; a zero-sized state confuses TSan's access tracking
  /// Serializes writes (read, edit, replace the file), so that concurrent writers never lose an update.
  let writeLock = Locked(0)  // the count of writes
  /// Where writes go.
  public let writeTarget: WriteTarget
  /// The last good document of every file the store read.
  let cache = DocumentCache()

  struct State {
    /// The last good contents of each layer (by index in `stack.layers`).
    var contents: [LayerContents?]
    /// Values set at run time, keyed by dotted key.
    var runtime = SettingValue.emptyTable(origin: .runtime)
    /// Registered settings by key. Held strongly: a group's deinit (or re-binding) unregisters its
    /// settings, and a box that nothing references weakly keeps the fast retain/release path that the
    /// cached read depends on.
    var registry: [String: [any AnySettingBox]] = [:]
    /// Every declared key, in registration order, with its environment name.
    var declared = DeclaredKeys()
    /// The keys of `.secret` settings: snapshots redact them in every text.
    var secretKeys: Set<String> = []
    /// Problems found resolving typed settings, by key, for the current generation.
    var settingDiagnostics: [String: [Diagnostic]] = [:]
    /// Changes to restart-required settings not applied, by key.
    var pendingRestarts: [String: PendingRestart] = [:]
    /// What each layer is told about its paths while the store runs (by index).
    var watches: [Int: LayerWatch] = [:]
    /// Subscribers to `events`.
    var eventContinuations: [Int: AsyncStream<StoreEvent>.Continuation] = [:]
    var nextEventContinuation = 0
  }

  /// Creates a store over an explicit stack of layers (lowest first) and loads it.
  /// - Parameters:
  ///   - layers: the layers, lowest first.
  ///   - options: parsing limits, the root prefix and the file formats (``ParseOptions/formats``).
  ///   - writeTarget: where writes go (default: the runtime layer, in memory).
  public init(
    layers: [any Layer], options: ParseOptions = ParseOptions(), writeTarget: WriteTarget = .runtime
  ) {
    stack = LayerStack(layers: layers, options: options)
    self.writeTarget = writeTarget
    state = Locked(State(contents: Array(repeating: nil, count: layers.count)))
    published = Locked(Snapshot.empty)
    rebuild(reloading: nil)
  }

  /// Creates a store with the standard layers of an app: vendor, system (with drop-ins), user,
  /// environment, and the command line when `arguments` are given. Writes go to the user's file (the
  /// existing `APP.{plist,json,ini,env}` that wins, else a new `APP.json`), or to the runtime layer when
  /// there is no home directory.
  /// - Parameters:
  ///   - app: the app's name, as in `/etc/NAME/NAME.ini`.
  ///   - root: a directory under which absolute paths are resolved (for tests); see ``StandardLayout``
  ///     for where the user's file is then.
  ///   - home: the home directory as the app sees it, instead of the environment's.
  ///   - environment: the process environment.
  ///   - arguments: `--key value` options for a ``CommandLineLayer`` above the environment, such as
  ///     `Array(CommandLine.arguments.dropFirst())` or what the program's own parser left over.
  ///   - formats: the file formats (default: the standard registry); the store over explicit layers
  ///     takes them in ``ParseOptions/formats``.
  public convenience init(
    app: String, root: String? = nil, home: String? = nil,
    environment: [String: String] = ProcessInfo.processInfo.environment, arguments: [String]? = nil,
    formats: FormatRegistry = .standard
  ) {
    let layout = StandardLayout(
      app: app, root: root, home: home, environment: environment, arguments: arguments, formats: formats)
    let options = layout.options()
    var target = WriteTarget.runtime
    if let directory = layout.userDirectory {
      let existing = layout.mainFiles(in: directory).last {
        FileSystem.entry(at: options.resolvePath($0)) != .missing
      }
      target = .file(existing ?? joinPath(directory, "\(app).json"))
    }
    self.init(layers: layout.layers, options: options, writeTarget: target)
  }

  /// A store with no files: code defaults plus `values` (a table), for tests and previews.
  public static func inMemory(_ values: SettingValue = .emptyTable(origin: .runtime)) -> SettingsStore {
    SettingsStore(layers: [StaticLayer(scope: .defaults, name: "in-memory", root: values)])
  }

  /// The current merged configuration.
  public var snapshot: Snapshot { published.withLock { $0 } }

  /// The current generation; it increases with every change.
  public var generation: Int { generationCounter.load(ordering: .acquiring) }

  /// Every key declared by a registered setting, in registration order, with their old names
  /// (aliases).
  public var declaredKeys: [String] { state.withLock { $0.declared.keys } }

  /// Reads every layer again and publishes the result if anything changed.
  public func reload() {
    rebuild(reloading: nil)
  }

  /// Reads again only the layers that involve `paths` (files, drop-in directories, included files), as
  /// the watcher reports them; unchanged files (by content hash) are not parsed again.
  public func reload(paths: Set<String>) {
    let layers = state.withLock { state in
      Set(
        state.contents.indices.filter { index in
          guard let watched = state.contents[index]?.paths else { return true }
          return paths.contains { path in
            watched.contains(path) || watched.contains { path.hasPrefix($0.hasSuffix("/") ? $0 : $0 + "/") }
          }
        })
    }
    rebuild(reloading: layers.isEmpty ? nil : layers)
  }

  /// Every path the layers look at (files, drop-in directories, included files), for a watcher.
  public var watchedPaths: [String] {
    state.withLock { state in
      var seen: Set<String> = []
      return state.contents.compactMap { $0?.paths }.flatMap { $0 }.filter { seen.insert($0).inserted }
    }
  }

  /// Sets a runtime value (the highest layer) and publishes it at once.
  /// - Throws: `invalidValue` when the key is, or holds, or lies inside, a `.readOnly` setting.
  public func setRuntimeValue(_ value: SettingValue?, forKey key: String) throws(StrataError) {
    try checkWritable(key)
    state.withLock { state in
      if let value {
        state.runtime.set(value, at: key)
      } else {
        state.runtime.remove(at: key)
      }
    }
    rebuild(reloading: [])
  }

  /// Rebuilds the snapshot. The layers at the indices in `reloading` (all, for `nil`) are read again;
  /// the others keep their last contents, except layers that read the layers below (the environment),
  /// which load again whenever something changed (their known keys may have grown). Loading happens outside the state lock; the new snapshot is
  /// published in one step, then settings are told, outside every lock.
  /// - Parameter fetched: contents already fetched for some of those layers (asynchronous ones).
  func rebuild(reloading: Set<Int>?, fetched: [Int: LayerContents] = [:]) {
    let (previous, published) = rebuildLock.withLock { count in
      count += 1
      return (snapshot, load(reloading: reloading, fetched: fetched))
    }
    guard let published else { return }
    let changes = published.changes(since: previous)
    publish(published, previous: previous, affected: changes.affected)
    announce(changes, from: previous, to: published)
  }

  private func load(reloading: Set<Int>?, fetched: [Int: LayerContents]) -> Snapshot? {
    let (previous, declared, runtime, secretKeys) = state.withLock {
      ($0.contents, $0.declared, $0.runtime, $0.secretKeys)
    }
    var contents = previous
    var sources: [(scope: Scope, document: Document)] = []
    var diagnostics: [Diagnostic] = []
    for (index, layer) in stack.layers.enumerated() {
      let readsLower = layer.readsLowerLayers
      if let ready = fetched[index] {
        contents[index] = ready
      } else if reloading?.contains(index) ?? true || readsLower || contents[index] == nil {
        let context = LoadContext(
          options: stack.options, declared: declared,
          lowerDocuments: readsLower ? sources.map(\.document) : [],
          cache: cache)
        contents[index] = layer.load(context)
      }
      let layerContents = contents[index]!
      diagnostics += layerContents.diagnostics
      for document in layerContents.documents {
        sources.append((layer.scope, document))
      }
    }
    if runtime.table?.isEmpty == false {
      sources.append((.runtime, Document(path: "runtime", root: runtime)))
    }
    let changedSnapshot: Snapshot? = published.withLock { current in
      let candidate = Snapshot(
        generation: current.generation + 1, sources: sources, diagnostics: diagnostics, secretKeys: secretKeys
      )
      // The sources, not only the merged root (which they determine): a hidden lower value that changed
      // is what a setting falls back to when the value above it does not convert.
      guard
        !Self.sameSources(candidate.sources, current.sources) || candidate.diagnostics != current.diagnostics
          || candidate.declaredSecretKeys != current.declaredSecretKeys || current.generation == 0
      else { return nil }
      current = candidate
      generationCounter.store(candidate.generation, ordering: .releasing)
      return candidate
    }
    let watches = state.withLock { state in
      state.contents = contents
      return state.watches
    }
    // Layers that watch files follow their new paths (an include added, a drop-in directory created).
    for (index, watch) in watches { watch.update(contents[index]?.paths ?? []) }
    return changedSnapshot
  }

  /// The context a layer loads with now: the declared keys and the documents of the layers below.
  func loadContext(forLayer index: Int) -> LoadContext {
    let (contents, declared) = state.withLock { ($0.contents, $0.declared) }
    let lower =
      stack.layers[index].readsLowerLayers ? contents[..<index].compactMap { $0 }.flatMap(\.documents) : []
    return LoadContext(options: stack.options, declared: declared, lowerDocuments: lower, cache: cache)
  }

  /// Whether two lists of merged documents hold the same scopes and trees (origins included).
  private static func sameSources(
    _ a: [(scope: Scope, document: Document)], _ b: [(scope: Scope, document: Document)]
  ) -> Bool {
    a.count == b.count
      && zip(a, b).allSatisfy {
        $0.scope == $1.scope && $0.document.isSecret == $1.document.isSecret
          && $0.document.root.isIdentical(to: $1.document.root)
      }
  }

  /// Tells the registered settings about a new snapshot (outside all locks; a setting ignores a
  /// snapshot older than one it has seen). Only settings whose keys the change touched resolve again;
  /// the others, if they had seen `previous`, just move to the new generation with their cached value.
  private func publish(_ snapshot: Snapshot, previous: Snapshot, affected: Set<String>) {
    let registry = state.withLock { state in state.registry }
    var applied: Set<String> = []
    var diagnostics: [String: [Diagnostic]] = [:]
    for (key, boxes) in registry {
      let isAffected = affected.contains(key)
      for box in boxes {
        if !isAffected && !box.readsAlias(in: affected)
          && box.advance(from: previous.generation, to: snapshot.generation)
        {
          continue
        }
        applied.insert(key)
        let found = box.apply(snapshot)
        if !found.isEmpty { diagnostics[key, default: []] += found }
      }
    }
    state.withLock { state in
      for key in applied { state.settingDiagnostics[key] = diagnostics[key] }
    }
  }

  /// Emits `reloaded` (when any leaf value changed) and `failed` (for each new error) events.
  private func announce(_ changes: Snapshot.Changes, from previous: Snapshot, to current: Snapshot) {
    var files: [String] = []
    func note(_ path: String?) {
      if let path, !files.contains(path) { files.append(path) }
    }
    for key in changes.changedValues {
      let origin = current.entry(forKey: key)?.origin
      note(origin?.path ?? origin?.description)
      note(previous.entry(forKey: key)?.origin.path)
    }
    for key in changes.removed { note(previous.entry(forKey: key)?.origin.path) }
    let changed = changes.changedValues + changes.removed
    if !changed.isEmpty && previous.generation > 0 {
      emit(.reloaded(generation: current.generation, changedKeys: changed, files: files))
    }
    let known = Set(previous.diagnostics)
    for diagnostic in current.diagnostics where diagnostic.severity == .error && !known.contains(diagnostic) {
      emit(.failed(diagnostic.error))
    }
    let now = Set(current.diagnostics)
    for diagnostic in previous.diagnostics where diagnostic.severity == .error && !now.contains(diagnostic) {
      emit(.recovered(diagnostic.error))
    }
  }

  /// Registers settings; their keys become known (to the environment layer, to schema checks).
  func register(_ boxes: [any AnySettingBox]) {
    let (addedKeys, addedSecret) = state.withLock { state in
      var added: [String] = []
      var addedSecret = false
      for box in boxes {
        if state.registry[box.key] == nil {
          state.declared.add(box.key)
          added.append(box.key)
        }
        // Old names (aliases) are known keys too, so that their environment variables still work.
        for alias in box.aliases where !state.declared.contains(alias) {
          state.declared.add(alias)
          added.append(alias)
        }
        if box.traits.contains(.secret) && state.secretKeys.insert(box.key).inserted { addedSecret = true }
        state.registry[box.key, default: []].append(box)
      }
      return (added, addedSecret)
    }
    let snapshot = self.snapshot
    var diagnostics: [String: [Diagnostic]] = [:]
    for box in boxes {
      let found = box.apply(snapshot)
      if !found.isEmpty { diagnostics[box.key] = found }
    }
    state.withLock { state in
      for (key, found) in diagnostics { state.settingDiagnostics[key] = found }
    }
    // New keys may give meaning to environment variables that were unknown until now; new secrets must
    // be redacted by the published snapshot.
    if addedSecret || (!addedKeys.isEmpty && stack.layers.contains(where: \.readsLowerLayers)) {
      rebuild(reloading: [])
    }
  }

  /// Ends every setting's `changes` and `values` streams. Reads keep working with the last values.
  public func shutdown() {
    let (boxes, continuations) = state.withLock { state in
      defer { state.eventContinuations = [:] }
      return (state.registry.values.flatMap { $0 }, Array(state.eventContinuations.values))
    }
    for box in boxes { box.finish() }
    for continuation in continuations { continuation.finish() }
  }

  /// Forgets settings (a group was released or re-bound).
  func unregister(_ boxes: [any AnySettingBox]) {
    state.withLock { state in
      for box in boxes {
        state.registry[box.key]?.removeAll { $0 === box }
        if state.registry[box.key]?.isEmpty == true {
          state.registry[box.key] = nil
          state.declared.remove(box.key)
          for alias in box.aliases { state.declared.remove(alias) }
          state.settingDiagnostics[box.key] = nil
          state.secretKeys.remove(box.key)
        }
      }
    }
  }

  /// The snapshot reads should use now: the pinned one inside `withConsistentSnapshot`, else the
  /// current one.
  func readingSnapshot() -> Snapshot {
    if pinCount.load(ordering: .relaxed) > 0, let pinned = Self.pinned[ObjectIdentifier(self)] {
      return pinned
    }
    return snapshot
  }
}

extension SettingValue {
  /// Removes the value at a key (see ``SettingKey``), and any table left empty by that.
  mutating func remove(at key: String) {
    remove(atComponents: SettingKey.names(in: key)[...])
  }

  private mutating func remove(atComponents components: ArraySlice<String>) {
    guard let first = components.first, case .table(var table) = kind else { return }
    if components.count == 1 {
      table[first] = nil
    } else if var child = table[first] {
      child.remove(atComponents: components.dropFirst())
      table[first] = child.table?.isEmpty == true ? nil : child
    }
    kind = .table(table)
  }
}

extension SettingValue {
  /// Whether two trees are equal in content and in every origin.
  func isIdentical(to other: SettingValue) -> Bool {
    guard origin == other.origin else { return false }
    switch (kind, other.kind) {
    case (.table(let a), .table(let b)):
      return a.count == b.count
        && zip(a.storage, b.storage).allSatisfy { $0.key == $1.key && $0.value.isIdentical(to: $1.value) }
    case (.array(let a), .array(let b)):
      return a.count == b.count && zip(a, b).allSatisfy { $0.isIdentical(to: $1) }
    default:
      return kind == other.kind
    }
  }
}

extension SettingsStore: CustomReflectable {
  /// What `dump(store)` and debuggers show: the current snapshot (secrets redacted), where writes go
  /// and the declared keys, never the raw state.
  public var customMirror: Mirror {
    Mirror(
      self, children: ["snapshot": snapshot, "writeTarget": writeTarget, "declaredKeys": declaredKeys],
      displayStyle: .class)
  }
}

extension SettingsStore {
  /// The prefix of the store's environment layer, if it has one.
  public var environmentPrefix: String? {
    stack.layers.lazy.compactMap { $0 as? EnvironmentLayer }.first?.prefix
  }

  /// Writes a value (or removes it, for `nil`) to the ``writeTarget`` and publishes the result at once.
  ///
  /// A file is replaced atomically (see ``WriteTarget``). A higher layer (the environment) still wins
  /// over what is written; the record's origin says so.
  /// - Throws: ``StrataError`` (`writeFailed`, or the parse error of a file that is broken now) when the
  ///   value cannot be written; then nothing changed, on disk or in memory.
  public func write(_ value: SettingValue?, forKey key: String) throws(StrataError) {
    try checkWritable(key)
    // Writing what is already there changes nothing: no file write, no new generation.
    if let value, let current = snapshot.value(forKey: key), current == value { return }
    guard case .file(let path) = writeTarget else {
      try setRuntimeValue(value, forKey: key)
      return
    }
    try writeLock.withLock { count throws(StrataError) in
      count += 1
      try FileWriter.write(value, forKey: key, toFile: path, options: stack.options)
    }
    let layers = state.withLock { state in
      Set(state.contents.indices.filter { state.contents[$0]?.paths.contains(path) ?? false })
    }
    rebuild(reloading: layers.isEmpty ? nil : layers)
  }

  /// Refuses a write that would change a `.readOnly` setting: at its key, above it (a table that holds
  /// it) or inside it (a field of its table).
  func checkWritable(_ key: String) throws(StrataError) {
    let readOnly = state.withLock { state in
      state.registry.first { entry in
        entry.value.contains { $0.traits.contains(.readOnly) }
          && (SettingKey.isKey(entry.key, within: key) || SettingKey.isKey(key, within: entry.key))
      }?.key
    }
    if let readOnly { throw StrataError(.invalidValue, "\(readOnly) is read-only") }
  }

  /// Records a problem with a setting that could not be thrown (an assignment through the property).
  func report(_ error: StrataError, forKey key: String) {
    state.withLock { $0.settingDiagnostics[key, default: []].append(Diagnostic(.error, error)) }
  }
}
