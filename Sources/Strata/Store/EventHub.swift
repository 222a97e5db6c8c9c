/// Who hears a store's events, and which problems they have been told of: the subscribers of
/// ``SettingsStore/events``, the synchronous observers (`config-dump --watch`), and the problems told by
/// `diagnosed`, `failed` or `rejected` events, so that none is told twice. Events are emitted on the
/// store's loop; subscribing and ending subscriptions may happen on any thread.
final class EventHub: Sendable {
  private struct State {
    var continuations: [Int: AsyncStream<StoreEvent>.Continuation] = [:]
    var nextContinuation = 0
    /// Who hears every event synchronously.
    var observers: [@Sendable (StoreEvent) -> Void] = []
    /// The problems subscribers have been told of (by `diagnosed`, `failed` or `rejected` events).
    var reported: Set<Diagnostic> = []
    /// Problems told by `failed` or `rejected` events since the last report of every standing problem.
    var announcedFailures: Set<FailureMark> = []
  }

  private let state = Locked(State())

  /// A new subscription, which begins with a `diagnosed` event for each of `standing`.
  func subscribe(standing: [Diagnostic]) -> AsyncStream<StoreEvent> {
    let (stream, continuation) = AsyncStream<StoreEvent>.makeStream(bufferingPolicy: .bufferingNewest(256))
    let id = state.withLock { state in
      defer { state.nextContinuation += 1 }
      state.continuations[state.nextContinuation] = continuation
      state.reported.formUnion(standing)
      return state.nextContinuation
    }
    continuation.onTermination = { [weak self] _ in
      _ = self?.state.withLock { $0.continuations.removeValue(forKey: id) }
    }
    for diagnostic in standing { continuation.yield(.diagnosed(diagnostic)) }
    return stream
  }

  /// Calls `body` with every event from now on, at once, on the thread that emits it.
  func observe(_ body: @escaping @Sendable (StoreEvent) -> Void) {
    state.withLock { $0.observers.append(body) }
  }

  /// How many subscriptions of ``SettingsStore/events`` are open.
  var subscriptionCount: Int { state.withLock { $0.continuations.count } }

  /// Whether anyone hears events.
  var hasListeners: Bool {
    state.withLock { !$0.continuations.isEmpty || !$0.observers.isEmpty }
  }

  /// Tells everyone `event`.
  func emit(_ event: StoreEvent) {
    let (continuations, observers) = state.withLock { state in
      switch event {
      case .failed(let error), .rejected(let error): state.announcedFailures.insert(FailureMark(error))
      default: break
      }
      return (Array(state.continuations.values), state.observers)
    }
    for observer in observers { observer(event) }
    for continuation in continuations { continuation.yield(event) }
  }

  /// Emits a `diagnosed` event for each of `found` not told before; with `replacing`, `found` is every
  /// problem standing, and those that are gone may be told again if they come back.
  func report(_ found: [Diagnostic], replacing: Bool = false) {
    let new = state.withLock { state -> [Diagnostic] in
      let new = found.filter {
        !state.reported.contains($0) && !state.announcedFailures.contains(FailureMark($0.error))
      }
      if replacing {
        state.reported = Set(found)
        state.announcedFailures = []
      } else {
        state.reported.formUnion(found)
      }
      return new
    }
    for diagnostic in new { emit(.diagnosed(diagnostic)) }
  }

  /// Ends every subscription and forgets the observers.
  func finish() {
    let continuations = state.withLock { state in
      defer {
        state.continuations = [:]
        state.observers = []
      }
      return Array(state.continuations.values)
    }
    for continuation in continuations { continuation.finish() }
  }
}

/// A problem told by a `failed` or `rejected` event, by position and kind, so that the same problem is
/// not told again as `diagnosed` (the event's message may say more: "the running value is kept").
struct FailureMark: Hashable {
  let path: String?
  let line: Int
  let column: Int
  let code: StrataError.Code

  init(_ error: StrataError) {
    path = error.path
    line = error.line
    column = error.column
    code = error.code
  }
}
