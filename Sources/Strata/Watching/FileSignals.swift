/// The store's file watcher, shared by the layers that read files: each layer subscribes with the
/// paths of its last contents (``LayerWatch``) and hears ``LayerChange/changed`` when one of them may
/// have changed. One watcher for the whole store: one set of watches however many layers share a
/// directory.
///
/// The watcher hands its batches here on the thread that finds them (the inotify hub's), and they go
/// on to each concerned subscriber's signal at once. A signal only tells the store's pipeline that the
/// layer may have changed: no file is read and no user code runs on the watcher's thread.
final class FileSignals: Sendable {
  private struct Subscriber {
    /// The layer's paths as the app sees them, by the absolute path on disk the watcher reports.
    var reportedByReal: [String: String]
    /// Takes the layer's signals (a stream's continuation, or the run loop's own).
    var receive: @Sendable (LayerChange) -> Void
    /// Called once when the watcher stops.
    var finish: @Sendable () -> Void
  }

  private struct State {
    var subscribers: [Int: Subscriber] = [:]
    var nextID = 0
    var stopped = false
  }

  private let watcher: FileWatcher
  private let resolvePath: @Sendable (String) -> String
  private let state = Locked(State())

  init(watcher: FileWatcher, resolvePath: @escaping @Sendable (String) -> String) {
    self.watcher = watcher
    self.resolvePath = resolvePath
    watcher.core.deliver(
      to: BatchReceiver(
        receive: { [weak self] batch in self?.hand(batch) },
        stop: { [weak self] in self?.finishAll() }))
  }

  /// Signals for the paths of `watch`, following them as they change, handed to `receive` on the
  /// watcher's thread; while `receive` runs, the hub's other watchers wait (their events queue in the
  /// kernel), so it must only pass the signal on. `finish` is called once the watcher stops.
  /// - Returns: the subscription, for ``unsubscribe(_:)``.
  @discardableResult
  func subscribe(
    _ watch: LayerWatch, receive: @escaping @Sendable (LayerChange) -> Void,
    finish: @escaping @Sendable () -> Void = {}
  ) -> Int {
    let (id, stopped) = state.withLock { state in
      defer { state.nextID += 1 }
      if !state.stopped {
        state.subscribers[state.nextID] = Subscriber(reportedByReal: [:], receive: receive, finish: finish)
      }
      return (state.nextID, state.stopped)
    }
    if stopped {
      finish()
      return id
    }
    watch.observePaths { [weak self] paths in
      guard let self else { return }
      var reportedByReal: [String: String] = [:]
      for path in paths { reportedByReal[FileSystem.absolutePath(resolvePath(path))] = path }
      let present = state.withLock { state in
        state.subscribers[id]?.reportedByReal = reportedByReal
        return state.subscribers[id] != nil
      }
      if present { updateTargets() }
    }
    return id
  }

  /// Ends a subscription: its paths are no longer watched for it.
  func unsubscribe(_ id: Int) {
    let removed = state.withLock { $0.subscribers.removeValue(forKey: id) }
    if removed != nil { updateTargets() }
  }

  /// Watches every subscriber's paths.
  private func updateTargets() {
    let targets = state.withLock { state in
      Set(state.subscribers.values.flatMap(\.reportedByReal.keys)).sorted()
    }
    watcher.setTargets(targets)
  }

  /// Hands a batch of the watcher to the subscribers it concerns.
  private func hand(_ batch: WatchBatch) {
    let subscribers = state.withLock { state in
      state.stopped ? [] : state.subscribers.sorted { $0.key < $1.key }.map(\.value)
    }
    for fallback in batch.fallbacks {
      // To the layer whose paths the fallback concerns (a directory above them, or one of them), else
      // to one layer: every fallback is reported once.
      let concerned =
        subscribers.first { subscriber in
          subscriber.reportedByReal.keys.contains {
            $0 == fallback.path || $0.hasPrefix(fallback.path + "/")
          }
        } ?? subscribers.first
      concerned?.receive(.fallback(fallback))
    }
    for subscriber in subscribers
    where batch.paths.contains(where: { subscriber.reportedByReal[$0] != nil }) {
      subscriber.receive(.changed)
    }
  }

  /// The watcher stopped: every subscriber hears it, once.
  private func finishAll() {
    let subscribers = state.withLock { state in
      defer {
        state.stopped = true
        state.subscribers = [:]
      }
      return state.stopped ? [] : Array(state.subscribers.values)
    }
    for subscriber in subscribers { subscriber.finish() }
  }

  /// Stops the watcher, which ends every subscriber's stream.
  func stop() { watcher.stop() }
}
