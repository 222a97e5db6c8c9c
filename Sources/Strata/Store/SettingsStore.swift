public import Synchronization

#if canImport(FoundationEssentials)
  public import FoundationEssentials
#else
  public import Foundation
#endif

/// The hub: owns the layers, the current ``Snapshot``, the registered settings, and writes.
///
/// <!-- snippet: Tests/DocSnippets/StoreSymbolSnippets.swift#SettingsStore -->
/// ```swift
/// let store = SettingsStore(app: "myserver")  // /usr/lib, /etc (+ conf.d), ~/.config, MYSERVER_*
/// let server = ServerSettings(store: store)
/// ```
///
/// Error policy, once for the whole library: building a store never throws. A file that cannot be read
/// or parsed becomes an error in ``diagnostics`` and keeps its last good document; a value that does not
/// convert to its setting's type is skipped for the next lower layer's (then the default) and reported
/// the same way. Only explicit operations on one thing — a write, a required key — throw
/// ``StrataError``.
public final class SettingsStore: Sendable {
  /// The store that `SettingsGroup()` binds to when no store is passed. With none set either, a group
  /// binds to a private in-memory store of defaults, which says so (see
  /// ``SettingsGroup/init(store:section:)``).
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
  /// The one loop every generation goes through: loaded, published and announced in order, on the
  /// loop's thread. Reads never touch it.
  let loop = ReloadLoop()
  /// Writes the store's file, one write at a time.
  let writer: StoreWriter
  /// Where writes go.
  var writeTarget: WriteTarget { writer.target }
  /// The last good document of every file the store read.
  let cache = DocumentCache()
  /// Who hears the store's events.
  let eventHub = EventHub()
  /// The keys recent generations changed: settings that a reload did not touch catch up on their next
  /// read from it.
  let changeLog = ChangeLog()
  /// The group class this store was made for when that group was made with no store and no
  /// ``current`` store: a private store that holds only defaults (see ``SettingsGroup/init(store:section:)``).
  let fallbackGroup: String?
  /// The app's name, for a store made with the standard layers (``init(app:root:home:environment:profile:arguments:formats:)``):
  /// where its control socket goes by default (see ``serveControl(at:onListening:)``).
  let app: String?

  struct State {
    /// The last good contents of each layer (by index in `stack.layers`).
    var contents: [LayerContents?]
    /// How many times the stack was loaded (each a merge of every layer's documents), the first load
    /// included: what declaring a group must not add to when no layer can change.
    var stackLoads = 0
    /// Values set at run time, keyed by dotted key.
    var runtime = SettingValue.emptyTable(origin: .runtime)
    /// The declared settings. Boxes are held strongly: a group's deinit (or re-binding) unregisters
    /// its settings, and a box that nothing references weakly keeps the fast retain/release path that
    /// the cached read depends on.
    var registry = SettingRegistry()
    /// Problems found resolving typed settings, by key, for the current generation.
    var settingDiagnostics: [String: [Diagnostic]] = [:]
    /// Changes to restart-required settings not applied, by key.
    var pendingRestarts: [String: SettingsStore.PendingRestart] = [:]
    /// The file watcher, while the run loop runs: each load watches the paths it read.
    var files: FileSignals?
    /// Where the status line goes after each generation, while the run loop runs with one.
    var notifier: SystemdNotifier?
    /// When the run loop reads failing or missing units again, while it runs.
    var retries: RetrySchedule?
    /// Whether ``SettingsStore/requireAll()`` has run: groups released before it are start-up mistakes.
    var hasRequiredAll = false
    /// Groups released before `requireAll()` ran (at most ``ReleasedGroup/limit``).
    var releasedGroups: [ReleasedGroup] = []
    /// When the current generation was published.
    var publishedAt = Date()
    /// The rules of the made groups that declare some, by group (its lifetime's identity).
    var rules: [ObjectIdentifier: GroupRules] = [:]
    /// Why each group that breaks its rules now does.
    var brokenRules: [ObjectIdentifier: StrataError] = [:]
    /// The sets of linked settings held while some changed and the others have not yet, by their keys.
    var linkHolds: [[String]: LinkHold] = [:]
    /// Where the history goes while the store runs (an app's state directory), if anywhere.
    var historyDirectory: String?
    /// The history, while the store runs.
    var journal: HistoryJournal?
    /// The last generation seen healthy, and the rollback standing (``SettingsStore/noteHealth(_:window:now:)``).
    var health = HealthRecord()
  }

  /// Creates a store over an explicit stack of layers (lowest first) and loads it.
  /// - Parameters:
  ///   - layers: the layers, lowest first.
  ///   - options: parsing limits, the root prefix and the file formats (``ParseOptions/formats``).
  ///   - writeTarget: where writes go (default: the runtime layer, in memory).
  ///   - app: the app's name, when these are an app's layers (a ``StandardLayout``'s with more): where
  ///     ``serveControl(at:onListening:)`` puts its socket by default.
  public convenience init(
    layers: [any Layer], options: ParseOptions = ParseOptions(),
    writeTarget: SettingsStore.WriteTarget = .runtime,
    app: String? = nil
  ) {
    self.init(layers: layers, options: options, writeTarget: writeTarget, fallbackFor: nil, app: app)
  }

  /// Creates a store over `layers`; `fallbackFor` names the group class a fallback store was made for,
  /// `app` the app whose standard layers these are.
  init(
    layers: [any Layer], options: ParseOptions, writeTarget: SettingsStore.WriteTarget, fallbackFor: String?,
    app: String? = nil
  ) {
    stack = LayerStack(layers: layers, options: options)
    writer = StoreWriter(target: writeTarget, options: options)
    fallbackGroup = fallbackFor
    self.app = app
    state = Locked(State(contents: Array(repeating: nil, count: layers.count)))
    published = Locked(Snapshot.empty)
    loop.attach { [weak self] work in self?.perform(work) }
    rebuild(reloading: nil)
  }

  /// Creates a store with the standard layers of an app: vendor, system (with drop-ins), user,
  /// environment, and the command line when `arguments` are given. Writes go to the user's file (the
  /// existing `APP.{plist,json,ini,env,toml}` that wins, else a new `APP.json`), or to the runtime layer when
  /// there is no home directory.
  /// - Parameters:
  ///   - app: the app's name, as in `/etc/NAME/NAME.ini`.
  ///   - root: a directory under which absolute paths are resolved (for tests); see ``StandardLayout``
  ///     for where the user's file is then.
  ///   - home: the home directory as the app sees it, instead of the environment's.
  ///   - environment: the process environment.
  ///   - profile: the profile the program chose, instead of `APP_PROFILE`'s (see ``StandardLayout``).
  ///   - arguments: `--key value` options for a ``CommandLineLayer`` above the environment, such as
  ///     `Array(CommandLine.arguments.dropFirst())` or what the program's own parser left over.
  ///   - formats: the file formats (default: the standard registry); the store over explicit layers
  ///     takes them in ``ParseOptions/formats``.
  public convenience init(
    app: String, root: String? = nil, home: String? = nil,
    environment: [String: String] = ProcessInfo.processInfo.environment, profile: String? = nil,
    arguments: [String]? = nil, formats: FormatRegistry = .standard
  ) {
    let layout = StandardLayout(
      app: app, root: root, home: home, environment: environment, profile: profile, arguments: arguments,
      formats: formats)
    let options = layout.options()
    var target = SettingsStore.WriteTarget.runtime
    if let directory = layout.userDirectory {
      let existing = layout.mainFiles(in: directory).last {
        FileSystem.entry(at: options.resolvePath($0)) != .missing
      }
      target = .file(existing ?? joinPath(directory, "\(app).json"))
    }
    self.init(layers: layout.layers, options: options, writeTarget: target, app: app)
    // Under a root, the directory is read and written inside it, as the files are.
    let directory = StateDirectory.of(
      app: app, environment: environment, isRoot: StateDirectory.isRoot, home: home)
    state.withLock { $0.historyDirectory = directory }
    restoreRollback()
  }

  /// A store with no files: code defaults plus `values` (a table), for tests and previews.
  public static func inMemory(
    _ values: SettingValue = SettingValue(.table(SettingTable()), origin: .runtime)
  ) -> SettingsStore {
    SettingsStore(layers: [StaticLayer(scope: .defaults, name: "in-memory", root: values)])
  }

  /// The current merged configuration.
  public var snapshot: Snapshot { published.withLock { $0 } }

  /// The current generation; it increases with every change.
  var generation: Int { generationCounter.load(ordering: .acquiring) }

  /// Every key declared by a registered setting, in registration order, with their old names
  /// (aliases).
  public var declaredKeys: [String] { state.withLock { $0.registry.declared.keys } }

  /// Reads every layer again and publishes the result if anything changed; returns once it is published
  /// and announced. From async code, prefer `await reload()`, which never blocks a thread while
  /// another reload runs.
  public func reload() {
    rebuild(reloading: nil)
  }

  /// Reads every layer again and publishes the result if anything changed; suspends (never blocks a
  /// thread) while another reload of the store runs.
  public func reload() async {
    await runPipeline(.reload(nil))
  }

  /// Reads again only the layers that involve `paths` (files, drop-in directories, included files);
  /// unchanged files are not parsed again. The tests' way to run a selective reload without the run loop.
  func reload(paths: Set<String>) {
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

  /// Every path the layers look at (files, drop-in directories, included files).
  var watchedPaths: [String] {
    state.withLock { state in
      var seen: Set<String> = []
      return state.contents.compactMap { $0?.paths }.flatMap { $0 }.filter { seen.insert($0).inserted }
    }
  }

  /// Ends every setting's `changes` and `values` streams. Reads keep working with the last values.
  public func shutdown() {
    let boxes = state.withLock { $0.registry.allBoxes }
    for box in boxes { box.finish() }
    eventHub.finish()
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
  package var environmentPrefix: String? {
    stack.layers.lazy.compactMap { $0 as? EnvironmentLayer }.first?.prefix
  }

}
