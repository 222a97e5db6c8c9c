/// The store's inotify watcher, shared by the layers that read files: each layer subscribes with the
/// paths of its last contents (``LayerWatch``) and hears ``LayerChange/changed`` when one of them may
/// have changed. One watcher for the whole store: one set of watches however many layers share a
/// directory.
final class FileSignals: Sendable {
  private struct Subscriber {
    /// The layer's paths as the app sees them, by the absolute path on disk the watcher reports.
    var reportedByReal: [String: String]
    var continuation: AsyncStream<LayerChange>.Continuation
  }

  private let watcher: FileWatcher
  private let resolvePath: @Sendable (String) -> String
  private let subscribers = Locked([Int: Subscriber]())
  private let nextID = Locked(0)

  init(watcher: FileWatcher, resolvePath: @escaping @Sendable (String) -> String) {
    self.watcher = watcher
    self.resolvePath = resolvePath
  }

  /// Signals for the paths of `watch`, following them as they change.
  func subscribe(_ watch: LayerWatch) -> AsyncStream<LayerChange> {
    let (stream, continuation) = AsyncStream<LayerChange>.makeStream()
    let id = nextID.withLock { next in
      defer { next += 1 }
      return next
    }
    subscribers.withLock { $0[id] = Subscriber(reportedByReal: [:], continuation: continuation) }
    continuation.onTermination = { [weak self] _ in
      guard let self else { return }
      _ = subscribers.withLock { $0.removeValue(forKey: id) }
      updateTargets()
    }
    watch.observePaths { [weak self] paths in
      guard let self else { return }
      var reportedByReal: [String: String] = [:]
      for path in paths { reportedByReal[absolutePath(resolvePath(path))] = path }
      subscribers.withLock { $0[id]?.reportedByReal = reportedByReal }
      updateTargets()
    }
    return stream
  }

  /// Watches every subscriber's paths.
  private func updateTargets() {
    let targets = subscribers.withLock { subscribers in
      Set(subscribers.values.flatMap(\.reportedByReal.keys)).sorted()
    }
    watcher.setTargets(targets)
  }

  /// Hands the watcher's batches to the subscribers they concern, until the watcher stops; then ends
  /// every subscriber's stream.
  func run() async {
    for await batch in watcher.changes {
      let subscribers = self.subscribers.withLock { Array($0.values) }
      for fallback in batch.fallbacks {
        // To the layer whose paths the fallback concerns (a directory above them, or one of them), else
        // to one layer: every fallback is reported once.
        let concerned =
          subscribers.first { subscriber in
            subscriber.reportedByReal.keys.contains {
              $0 == fallback.path || $0.hasPrefix(fallback.path + "/")
            }
          } ?? subscribers.first
        concerned?.continuation.yield(.fallback(fallback))
      }
      for subscriber in subscribers
      where batch.paths.contains(where: { subscriber.reportedByReal[$0] != nil }) {
        subscriber.continuation.yield(.changed)
      }
    }
    for subscriber in subscribers.withLock({ Array($0.values) }) { subscriber.continuation.finish() }
  }

  /// Stops the watcher, which ends ``run()``.
  func stop() { watcher.stop() }
}
