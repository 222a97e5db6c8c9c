/// What a layer tells the store's run loop through the `signal` of ``Layer/follow(_:signal:)``.
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
    /// Where the watcher's signals go, while ``followFiles(signal:)`` runs.
    var signal: (@Sendable (LayerChange) -> Void)?
    /// Signals that came before ``followFiles(signal:)`` attached (told to it when it does).
    var missed: [LayerChange] = []
    /// Ends ``followFiles(signal:)`` when the watcher stops.
    var end: AsyncStream<Void>.Continuation?
    var stopped = false
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

  /// Calls `signal` with ``LayerChange/changed`` whenever one of ``paths`` may have changed (an
  /// editor's save, a drop-in added, a Kubernetes volume swapped), until the task is cancelled or the
  /// store's watcher stops; the watched paths follow ``paths``. A watch that falls back to polling comes
  /// as ``LayerChange/fallback(_:)``. Returns at once when the store runs no watcher. What a file layer's
  /// ``Layer/follow(_:signal:)`` does; `signal` is called on the watcher's thread.
  ///
  /// The paths are watched from the moment the store's run loop made the watch, before this is called:
  /// a change seen in between is signalled as soon as this attaches.
  public func followFiles(signal: @escaping @Sendable (LayerChange) -> Void) async {
    guard files != nil else { return }
    let (ended, end) = AsyncStream<Void>.makeStream()
    let missed = state.withLock { state -> [LayerChange]? in
      guard !state.stopped else { return nil }
      defer { state.missed = [] }
      state.signal = signal
      state.end = end
      return state.missed
    }
    guard let missed else { return }
    for change in missed { signal(change) }
    for await _ in ended {}  // until cancelled, or the watcher stops
    state.withLock { state in
      state.signal = nil
      state.end = nil
    }
  }

  /// A signal of the store's watcher (on its thread): to ``followFiles(signal:)``, or kept for it.
  func deliver(_ change: LayerChange) {
    let signal = state.withLock { state -> (@Sendable (LayerChange) -> Void)? in
      if state.signal == nil && !state.missed.contains(change) { state.missed.append(change) }
      return state.signal
    }
    signal?(change)
  }

  /// The store's watcher stopped: ``followFiles(signal:)`` returns.
  func finish() {
    let end = state.withLock { state in
      state.stopped = true
      return state.end
    }
    end?.finish()
  }

  /// The paths of the layer's last contents.
  public var paths: [String] { state.withLock { $0.paths } }

  /// Calls `body` with the paths now, and again whenever they change.
  func observePaths(_ body: @escaping @Sendable ([String]) -> Void) {
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
