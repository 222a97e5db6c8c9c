/// A running store's file watcher: the paths of each layer that reads files, kept up to date after each
/// load, and, for each batch the watcher finds, the layers it concerns. One watcher for the whole store:
/// one set of watches however many layers share a directory.
///
/// The watcher hands its batches here on the thread that finds them (the inotify hub's), and they go on
/// to the store at once as "these layers may have changed" (``init(watcher:resolvePath:changed:fallback:)``'s
/// closures, which only post work to the store's loop): no file is read and no user code runs on the
/// watcher's thread.
final class FileSignals: Sendable {
  private struct State {
    /// Each layer's paths as the absolute paths on disk the watcher reports, by layer index.
    var realPaths: [Int: Set<String>] = [:]
    var stopped = false
  }

  private let watcher: FileWatcher
  private let resolvePath: @Sendable (String) -> String
  private let state = Locked(State())
  private let changed: @Sendable (Set<Int>) -> Void
  private let fallback: @Sendable (WatcherFallback) -> Void

  /// - Parameters:
  ///   - changed: told which layers may have changed, on the watcher's thread; while it runs the hub's
  ///     other watchers wait (their events queue in the kernel), so it must only pass the news on.
  ///   - fallback: told of each watch that fell back to polling, on the watcher's thread.
  init(
    watcher: FileWatcher, resolvePath: @escaping @Sendable (String) -> String,
    changed: @escaping @Sendable (Set<Int>) -> Void, fallback: @escaping @Sendable (WatcherFallback) -> Void
  ) {
    self.watcher = watcher
    self.resolvePath = resolvePath
    self.changed = changed
    self.fallback = fallback
    watcher.core.deliver(
      to: BatchReceiver(
        receive: { [weak self] batch in self?.hand(batch) },
        stop: { [weak self] in self?.state.withLock { $0.stopped = true } }))
  }

  /// Watches `paths` (as the app sees them) for the layer at `index`, instead of its paths before.
  func watch(_ paths: [String], ofLayer index: Int) {
    let real = Set(paths.map { FileSystem.absolutePath(resolvePath($0)) })
    let targets = state.withLock { state -> [String]? in
      guard !state.stopped, state.realPaths[index] != real else { return nil }
      state.realPaths[index] = real
      return Set(state.realPaths.values.joined()).sorted()
    }
    if let targets { watcher.setTargets(targets) }
  }

  /// Hands a batch of the watcher to the store: which layers it concerns, and its fallbacks.
  private func hand(_ batch: WatchBatch) {
    let layers = state.withLock { state -> Set<Int> in
      guard !state.stopped else { return [] }
      return Set(state.realPaths.filter { !$0.value.isDisjoint(with: batch.paths) }.keys)
    }
    for fallback in batch.fallbacks { self.fallback(fallback) }
    if !layers.isEmpty { changed(layers) }
  }

  /// Stops the watcher.
  func stop() { watcher.stop() }
}
