/// What happens to a store's configuration over time: events and pending restarts.
extension SettingsStore {
  /// Changes to `.restartRequired` settings that the running program has not applied, by key order.
  public var pendingRestarts: [SettingsStore.PendingRestart] {
    state.withLock { $0.pendingRestarts.values.sorted { $0.key < $1.key } }
  }

  /// A pending restart that was undone (8080 → 8081 → 8080): the files hold the running value again.
  func clearPendingRestart(forKey key: String) {
    state.withLock { _ = $0.pendingRestarts.removeValue(forKey: key) }
  }

  func recordPendingRestart(_ pending: SettingsStore.PendingRestart) {
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
    eventHub.subscribe(standing: diagnostics)
  }

  /// Calls `body` with every event from now on, as ``events`` would give them, but at once, on the
  /// thread that emits it (the store's loop, for a reload), until ``shutdown()``: no task hop between a
  /// reload and its event (`config-dump --watch` prints its lines from here). `body` must be quick; it
  /// holds up the reload.
  package func observeEvents(_ body: @escaping @Sendable (StoreEvent) -> Void) {
    eventHub.observe(body)
  }

  func emit(_ event: StoreEvent) {
    eventHub.emit(event)
  }

  /// Emits a `diagnosed` event for each problem of ``diagnostics`` not told before (by a `diagnosed`,
  /// `failed` or `rejected` event). It costs a walk of every key, so it runs only while someone
  /// subscribes: after a reload, and when the run loop starts (settings declared since then may have
  /// made keys unknown).
  func reportNewDiagnostics() {
    guard hasEventListeners else { return }
    eventHub.report(diagnostics, replacing: true)
  }

  /// Emits a `diagnosed` event for each of `found` not told before.
  func report(_ found: [Diagnostic]) {
    eventHub.report(found)
  }
}
