/// Applying a new snapshot to a setting: its value, its rejected edits and pending restarts, and what its
/// listeners hear.
extension SettingBox {
  /// Whether a resolution's rejected top value leaves the running value in place: once the setting has
  /// a value, a live edit that does not convert or validate never changes it (a start-up fallback, made
  /// before there was a running value, goes on following the layers below until the edit is fixed).
  func keepsRunningValue(_ state: State, _ resolved: Resolution) -> Bool {
    resolved.rejectedTop != nil && state.hasRunningValue
      && (state.isHoldingLastGood || state.rejection == nil)
  }

  /// What applying a snapshot asks the store to tell.
  enum Notice {
    case pendingRestart(SettingsStore.PendingRestart)
    /// A restart-required setting's files hold its running value again.
    case noLongerPending
    /// A live edit was rejected; the running value stays.
    case rejected(StrataError)
    /// A rejection reported before is gone.
    case recovered(StrataError)
  }

  @_specialize(where Value == Int)
  @_specialize(where Value == String)
  @_specialize(where Value == Bool)
  @_specialize(where Value == Double)
  func apply(_ snapshot: Snapshot) -> SettingApplication? {
    let key = self.key
    let resolved = resolve(in: snapshot, key: key, collectingCandidates: false)
    let restartRequired = traits.contains(.restartRequired)
    let isSecret = traits.contains(.secret)
    let outcome = withState {
      state -> (
        listeners: [AsyncStream<Value>.Continuation], observe: (@Sendable () -> Void)?, notices: [Notice],
        kept: Bool
      )? in
      guard state.appliedGeneration < snapshot.generation else { return nil }
      state.appliedGeneration = snapshot.generation
      var notices: [Notice] = []
      // A rejected edit: the running value stays, and the store says so once per new rejection.
      if keepsRunningValue(state, resolved), let rejection = resolved.rejectedTop {
        if state.rejection?.description != rejection.description {
          var kept = rejection
          kept.message += "; the running value is kept"
          notices.append(.rejected(kept))
        }
        state.rejection = rejection
        state.isHoldingLastGood = true
        if state.generation < snapshot.generation { state.generation = snapshot.generation }
        return ([], nil, notices, true)
      }
      if resolved.rejectedTop == nil, let cleared = state.rejection {
        notices.append(.recovered(cleared))
      }
      state.rejection = resolved.rejectedTop
      state.isHoldingLastGood = false
      // The encoded form compares typed values; only a setting someone listens to (or one fixed at its
      // first value) needs it: most settings of a large configuration have no stream or observer.
      let listens = !state.continuations.isEmpty || state.observe != nil || restartRequired
      let encoded: SettingValue? = listens ? resolved.value.flatMap { try? encode($0) } : nil
      if state.isRunningValueFixed {
        let running: SettingValue? = state.value.flatMap { try? encode($0) }
        guard !(running == encoded) else { return ([], nil, notices + [.noLongerPending], true) }
        let shown = { (value: SettingValue?) in isSecret ? redactedText : value.map(ValueText.plain) ?? "nil"
        }
        let pending = SettingsStore.PendingRestart(
          key: key, runningValue: shown(running), newValue: shown(encoded), origin: resolved.origin)
        return ([], nil, notices + [.pendingRestart(pending)], true)
      }
      if state.generation < snapshot.generation {
        state.generation = snapshot.generation
        state.value = resolved.value
        state.origin = resolved.origin
        // A restart-required setting keeps the value it started with once the program has read it.
        state.isRunningValueFixed = restartRequired && state.delivered != nil && state.value != nil
      }
      state.hasRunningValue = true
      guard listens else {
        state.delivered = nil
        return ([], nil, notices, false)
      }
      let first = state.delivered == nil
      let changed = !first && !(state.delivered == encoded)
      state.delivered = encoded ?? Self.deliveredNothing
      guard changed else { return ([], nil, notices, false) }
      return (Array(state.continuations.values), state.observe, notices, false)
    }
    guard let (listeners, observe, notices, kept) = outcome else { return nil }
    observe?()
    if let value = resolved.value {
      for continuation in listeners { continuation.yield(value) }
    }
    for notice in notices {
      switch notice {
      case .pendingRestart(let pending): store?.recordPendingRestart(pending)
      case .noLongerPending: store?.clearPendingRestart(forKey: key)
      case .rejected(let error): store?.emit(.rejected(error))
      case .recovered(let error): store?.emit(.recovered(error))
      }
    }
    return SettingApplication(diagnostics: resolved.diagnostics, keptRunningValue: kept)
  }

  /// The values of lower layers that the running one hides, nearest first, each rejected one with why
  /// (never the running value itself).
  func shadowed(in snapshot: Snapshot) -> [(value: SettingValue, rejection: String?)] {
    let resolved = resolve(in: snapshot, key: key)
    let running = readState { $0.origin }
    var found = false
    return resolved.candidates.filter { candidate in
      // The first candidate from where the running value came is the running value itself.
      if !found && candidate.rejection == nil && candidate.value.origin == running {
        found = true
        return false
      }
      return true
    }
  }

  func resolvedWithoutApplying(in snapshot: Snapshot) -> (
    value: SettingValue?, origin: Origin, rejection: StrataError?
  ) {
    let resolved = resolve(in: snapshot, key: key, collectingCandidates: false)
    return (resolved.value.flatMap { try? encode($0) }, resolved.origin, resolved.rejectedTop)
  }

  func standingRejection() -> (error: StrataError, keptRunningValue: Bool)? {
    readState { state in state.rejection.map { ($0, state.isHoldingLastGood) } }
  }
}
