/// Who hears a store's events, and which problems they have been told of: the subscribers of
/// ``SettingsStore/events``, the synchronous observers (`config-dump --watch`), and the problems told by
/// `diagnosed`, `failed` or `rejected` events, so that none is told twice. Events are emitted on the
/// store's loop; subscribing and ending subscriptions may happen on any thread.
final class EventHub: Sendable {
  private struct State {
    /// The subscriptions: what each does with an event, and how it ends.
    var continuations: [Int: Subscriber] = [:]
    var nextContinuation = 0
    /// Who hears every event synchronously.
    var observers: [@Sendable (StoreEvent) -> Void] = []
    /// The problems subscribers have been told of (by `diagnosed`, `failed` or `rejected` events).
    var reported: Set<Diagnostic> = []
    /// Problems told by `failed` or `rejected` events since the last report of every standing problem.
    var announcedFailures: Set<FailureMark> = []
  }

  /// One subscription: what it makes of an event (to yield, or `nil`), and how it ends.
  private struct Subscriber: Sendable {
    let receive: @Sendable (StoreEvent) -> Void
    let finish: @Sendable () -> Void
    /// Whose subscription it is, when it ends with its owner (a group's ``SettingsGroup/changes``).
    let owner: ObjectIdentifier?
  }

  private let state = Locked(State())

  /// A new subscription, which begins with a `diagnosed` event for each of `standing`.
  func subscribe(standing: [Diagnostic]) -> AsyncStream<StoreEvent> {
    let (stream, continuation) = AsyncStream<StoreEvent>.makeStream(bufferingPolicy: .bufferingNewest(256))
    add(continuation, receiving: { $0 }, standing: standing)
    for diagnostic in standing { continuation.yield(.diagnosed(diagnostic)) }
    return stream
  }

  /// A new subscription to what `transform` makes of each event from now on (an event it makes `nil`
  /// of is skipped), which ends at ``finish()``, or at ``finish(owner:)`` of `owner`.
  func subscribe<Element: Sendable>(
    owner: ObjectIdentifier, _ transform: @escaping @Sendable (StoreEvent) -> Element?
  ) -> AsyncStream<Element> {
    let (stream, continuation) = AsyncStream<Element>.makeStream(bufferingPolicy: .bufferingNewest(256))
    add(continuation, receiving: transform, standing: [], owner: owner)
    return stream
  }

  private func add<Element: Sendable>(
    _ continuation: AsyncStream<Element>.Continuation,
    receiving transform: @escaping @Sendable (StoreEvent) -> Element?, standing: [Diagnostic],
    owner: ObjectIdentifier? = nil
  ) {
    let subscriber = Subscriber(
      receive: { event in transform(event).map { _ = continuation.yield($0) } },
      finish: { continuation.finish() }, owner: owner)
    let id = state.withLock { state in
      defer { state.nextContinuation += 1 }
      state.continuations[state.nextContinuation] = subscriber
      state.reported.formUnion(standing)
      return state.nextContinuation
    }
    continuation.onTermination = { [weak self] _ in
      _ = self?.state.withLock { $0.continuations.removeValue(forKey: id) }
    }
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
    for subscriber in continuations { subscriber.receive(event) }
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

  /// Ends the subscriptions of `owner` (a group being released).
  func finish(owner: ObjectIdentifier) {
    let ended = state.withLock { state in
      let ids = state.continuations.filter { $0.value.owner == owner }.map(\.key)
      return ids.compactMap { state.continuations.removeValue(forKey: $0) }
    }
    for subscriber in ended { subscriber.finish() }
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
    for subscriber in continuations { subscriber.finish() }
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
