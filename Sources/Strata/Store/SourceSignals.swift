/// The signals of a running store's sources, noted and coalesced until the run loop takes them: which
/// layers may have changed, which watches fell back to polling, and whether everything must be read
/// again (a reload request). Noting a signal never blocks and does no I/O, so any thread may do it (the
/// watcher's included); the run loop wakes once for any number of signals noted meanwhile.
final class SourceSignals: Sendable {
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

  init() {
    (wakes, wake) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
  }

  /// Notes a layer's signal.
  func signal(_ change: LayerChange, fromLayer index: Int) {
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
