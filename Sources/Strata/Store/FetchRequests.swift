/// What a running store's run task does itself, noted and coalesced until it takes them: layers that
/// must be fetched (a remote source that said it changed, or is due a retry) and reload requests
/// (`SIGHUP`), which read everything again. Every other change goes straight to the store's loop.
/// Noting never blocks and does no I/O, so any thread may do it.
final class FetchRequests: Sendable {
  /// What the run task takes.
  struct Taken: Sendable {
    var layers: Set<Int> = []
    var everything = false
  }

  private let state = Locked(Taken())
  private let wake: AsyncStream<Void>.Continuation
  /// One element after any number of requests; ends when ``finish()`` is called.
  let wakes: AsyncStream<Void>

  init() {
    (wakes, wake) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
  }

  /// Notes that a layer must be fetched again.
  func fetch(_ index: Int) {
    state.withLock { _ = $0.layers.insert(index) }
    wake.yield()
  }

  /// Notes a reload request: every layer is read again.
  func everything() {
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
