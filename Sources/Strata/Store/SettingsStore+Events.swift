/// What happens to a store's configuration over time: events and pending restarts.
extension SettingsStore {
  /// Changes to `.restartRequired` settings that the running program has not applied, by key order.
  public var pendingRestarts: [PendingRestart] {
    state.withLock { $0.pendingRestarts.values.sorted { $0.key < $1.key } }
  }

  /// A pending restart that was undone (8080 → 8081 → 8080): the files hold the running value again.
  func clearPendingRestart(forKey key: String) {
    state.withLock { _ = $0.pendingRestarts.removeValue(forKey: key) }
  }

  func recordPendingRestart(_ pending: PendingRestart) {
    let isNew = state.withLock { state in
      defer { state.pendingRestarts[pending.key] = pending }
      return state.pendingRestarts[pending.key] != pending
    }
    if isNew { emit(.pendingRestart(pending)) }
  }

  /// What happens to the configuration from now on: reloads with their changed keys, files that fail
  /// (with file:line:column), every other problem found (``StoreEvent/diagnosed(_:)``), pending
  /// restarts, watcher fallbacks. Each call is a new subscription; it begins with a `diagnosed` event
  /// for each problem of ``diagnostics`` standing now, and ends at ``shutdown()``.
  public var events: AsyncStream<StoreEvent> {
    let (stream, continuation) = AsyncStream<StoreEvent>.makeStream(bufferingPolicy: .bufferingNewest(256))
    let standing = diagnostics
    let id = state.withLock { state in
      defer { state.nextEventContinuation += 1 }
      state.eventContinuations[state.nextEventContinuation] = continuation
      state.reportedDiagnostics.formUnion(standing)
      return state.nextEventContinuation
    }
    continuation.onTermination = { [weak self] _ in
      _ = self?.state.withLock { $0.eventContinuations.removeValue(forKey: id) }
    }
    for diagnostic in standing { continuation.yield(.diagnosed(diagnostic)) }
    return stream
  }

  /// Calls `body` with every event from now on, as ``events`` would give them, but at once, on the
  /// thread that emits it (the run loop's, for a reload), until ``shutdown()``: no task hop between a
  /// reload and its event (`config-dump --watch` prints its lines from here). `body` must be quick; it
  /// holds up the reload.
  package func observeEvents(_ body: @escaping @Sendable (StoreEvent) -> Void) {
    state.withLock { $0.eventObservers.append(body) }
  }

  func emit(_ event: StoreEvent) {
    let (continuations, observers) = state.withLock { state in
      switch event {
      case .failed(let error), .rejected(let error): state.announcedFailures.insert(FailureMark(error))
      default: break
      }
      return (Array(state.eventContinuations.values), state.eventObservers)
    }
    for observer in observers { observer(event) }
    for continuation in continuations { continuation.yield(event) }
  }

  /// Emits a `diagnosed` event for each problem of ``diagnostics`` not told before (by a `diagnosed`,
  /// `failed` or `rejected` event). It costs a walk of every key, so it runs only while someone subscribes: after a
  /// reload, and when the run loop starts (settings declared since then may have made keys unknown).
  func reportNewDiagnostics() {
    guard hasEventListeners else { return }
    report(diagnostics, replacing: true)
  }

  /// Emits a `diagnosed` event for each of `found` not told before; with `replacing`, `found` is every
  /// problem standing, and those that are gone may be told again if they come back.
  func report(_ found: [Diagnostic], replacing: Bool = false) {
    let new = state.withLock { state -> [Diagnostic] in
      let new = found.filter {
        !state.reportedDiagnostics.contains($0) && !state.announcedFailures.contains(FailureMark($0.error))
      }
      if replacing {
        state.reportedDiagnostics = Set(found)
        state.announcedFailures = []
      } else {
        state.reportedDiagnostics.formUnion(found)
      }
      return new
    }
    for diagnostic in new { emit(.diagnosed(diagnostic)) }
  }
}

/// A problem told by a `failed` or `rejected` event, by position and kind, so that the same problem is not told again
/// as `diagnosed` (the event's message may say more: "the running value is kept").
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
