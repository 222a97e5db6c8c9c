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
  /// (with file:line:column), pending restarts, watcher fallbacks. Each call is a new subscription; it
  /// ends at ``shutdown()``.
  public var events: AsyncStream<StoreEvent> {
    let (stream, continuation) = AsyncStream<StoreEvent>.makeStream(bufferingPolicy: .bufferingNewest(256))
    let id = state.withLock { state in
      defer { state.nextEventContinuation += 1 }
      state.eventContinuations[state.nextEventContinuation] = continuation
      return state.nextEventContinuation
    }
    continuation.onTermination = { [weak self] _ in
      _ = self?.state.withLock { $0.eventContinuations.removeValue(forKey: id) }
    }
    return stream
  }

  func emit(_ event: StoreEvent) {
    let continuations = state.withLock { Array($0.eventContinuations.values) }
    for continuation in continuations { continuation.yield(event) }
  }

}
