/// The registry of declared settings: the boxes of every group bound to the store.
extension SettingsStore {
  /// Registers settings; their keys become known (to the environment layer, to schema checks).
  func register(_ boxes: [any AnySettingBox]) {
    let (addedKeys, addedSecret) = state.withLock { $0.registry.add(boxes) }
    let snapshot = self.snapshot
    var diagnostics: [String: [Diagnostic]] = [:]
    for box in boxes {
      let found = box.apply(snapshot)
      if !found.isEmpty { diagnostics[box.key] = found }
    }
    let hasSubscribers = state.withLock { state in
      for (key, found) in diagnostics { state.settingDiagnostics[key] = found }
      return !state.eventContinuations.isEmpty
    }
    // The new settings' own problems are told now; keys they leave unknown, when the run loop starts.
    if hasSubscribers { report(diagnostics.keys.sorted().flatMap { diagnostics[$0] ?? [] }) }
    // New keys may give meaning to environment variables that were unknown until now; new secrets must
    // be redacted by the published snapshot.
    if addedSecret || (!addedKeys.isEmpty && stack.layers.contains(where: \.readsLowerLayers)) {
      rebuild(reloading: [], reportsDiagnostics: false)
    }
  }

  /// Forgets settings (a group was released or re-bound).
  func unregister(_ boxes: [any AnySettingBox]) {
    state.withLock { state in
      for key in state.registry.remove(boxes) { state.settingDiagnostics[key] = nil }
    }
  }
}
