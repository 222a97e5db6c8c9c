/// The signals of a running store's sources, noted and coalesced until they are served: which layers
/// may have changed, which watches fell back to polling, and whether everything must be read again (a
/// reload request). Noting a signal never blocks and does no I/O, so any thread may do it (the watcher's
/// included).
///
/// A layer that loads without waiting is served straight on the store's worker thread (one job for
/// any number of signals noted before it starts: no task in between the watcher and the reload); the
/// rest (layers that must be fetched, fallbacks, reload requests) wake the run loop once for any number
/// of signals noted meanwhile.
final class SourceSignals: Sendable {
  private struct Direct {
    var layers: Set<Int> = []
    var scheduled = false
  }
  /// What the run loop takes.
  struct Taken: Sendable {
    var layers: Set<Int> = []
    var fallbacks: [WatcherFallback] = []
    var everything = false
  }

  private let state = Locked(Taken())
  private let wake: AsyncStream<Void>.Continuation
  /// One element after any number of signals; ends when ``finish()`` is called.
  let wakes: AsyncStream<Void>
  private let direct = Locked(Direct())
  /// The layers served on the worker thread.
  private let immediate: Set<Int>
  private let worker: WorkerThread?
  /// Reloads layers on the worker thread (the store's synchronous pipeline run).
  private let reload: @Sendable (Set<Int>) -> Void

  /// - Parameters:
  ///   - immediate: the layers to serve on `worker` (those that load without waiting).
  ///   - reload: what the worker does with them.
  init(
    immediate: Set<Int> = [], worker: WorkerThread? = nil,
    reload: @escaping @Sendable (Set<Int>) -> Void = { _ in }
  ) {
    (wakes, wake) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
    self.immediate = immediate
    self.worker = worker
    self.reload = reload
  }

  /// Notes a layer's signal.
  func signal(_ change: LayerChange, fromLayer index: Int) {
    if change == .changed, immediate.contains(index), let worker {
      let schedules = direct.withLock { direct in
        direct.layers.insert(index)
        defer { direct.scheduled = true }
        return !direct.scheduled
      }
      if schedules {
        let accepted = worker.submit { [self] in
          let layers = direct.withLock { direct in
            defer { direct = Direct() }
            return direct.layers
          }
          reload(layers)
        }
        if accepted { return }
      } else {
        return
      }
    }
    state.withLock { state in
      switch change {
      case .changed: state.layers.insert(index)
      case .fallback(let fallback): state.fallbacks.append(fallback)
      }
    }
    wake.yield()
  }

  /// Notes a reload request: every layer is read again.
  func requestReload() {
    state.withLock { $0.everything = true }
    wake.yield()
  }

  /// What was noted since the last call.
  func take() -> Taken {
    state.withLock { state in
      defer { state = Taken() }
      return state
    }
  }

  /// Ends ``wakes``.
  func finish() { wake.finish() }
}
