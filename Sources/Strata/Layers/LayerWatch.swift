/// What a layer tells the store's run loop through ``Layer/changes(_:)``.
public enum LayerChange: Sendable, Equatable {
  /// The layer's contents may have changed: the store loads it again (an unchanged file costs a read
  /// and no parse) and publishes what differs.
  case changed
  /// A problem that does not stop the layer, such as a watch that fell back to polling; reported as a
  /// ``StoreEvent/watcherFallback(path:message:)`` event.
  case fallback(WatcherFallback)
}

/// What the store gives a layer to watch: the paths of the layer's last contents (files, drop-in
/// directories, included files), kept up to date after each load.
public final class LayerWatch: Sendable {
  private struct State {
    var paths: [String]
    var observers: [@Sendable ([String]) -> Void] = []
  }

  private let state: Locked<State>
  /// Parsing options of the store (``ParseOptions/resolvePath`` maps a path to where it is on disk).
  public let options: ParseOptions
  /// The store's file watcher, when the store runs one.
  let files: FileSignals?

  /// Creates a watch over the given paths, with no file watcher (for layers tested alone).
  public convenience init(paths: [String], options: ParseOptions = ParseOptions()) {
    self.init(paths: paths, options: options, files: nil)
  }

  init(paths: [String], options: ParseOptions, files: FileSignals?) {
    state = Locked(State(paths: paths))
    self.options = options
    self.files = files
  }

  /// ``LayerChange/changed`` whenever one of ``paths`` may have changed (an editor's save, a drop-in
  /// added, a Kubernetes volume swapped), from the store's inotify watcher; the watched paths follow
  /// ``paths``. A watch that falls back to polling comes as ``LayerChange/fallback(_:)``. `nil` when
  /// the store runs no watcher.
  public func fileChanges() -> AsyncStream<LayerChange>? {
    files?.subscribe(self)
  }

  /// The paths of the layer's last contents.
  public var paths: [String] { state.withLock { $0.paths } }

  /// Calls `body` with the paths now, and again whenever they change.
  public func observePaths(_ body: @escaping @Sendable ([String]) -> Void) {
    let paths = state.withLock { state in
      state.observers.append(body)
      return state.paths
    }
    body(paths)
  }

  /// Sets the paths after a load; observers hear of it when they differ.
  func update(_ paths: [String]) {
    let observers = state.withLock { state -> [@Sendable ([String]) -> Void] in
      guard Set(paths) != Set(state.paths) else { return [] }
      state.paths = paths
      return state.observers
    }
    for observer in observers { observer(paths) }
  }
}

/// A layer whose signals are exactly its watch's file signals (``LayerWatch/fileChanges()``): the
/// store takes them from the watcher directly and loads the layer again on the watcher's thread,
/// instead of hearing them through the layer's stream and two tasks (no task hop instead of three).
protocol SignalsFromFiles: Layer {}

extension FileLayer: SignalsFromFiles {}
extension KeyPerFileLayer: SignalsFromFiles {}
