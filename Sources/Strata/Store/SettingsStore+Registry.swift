/// The registry of declared settings: the boxes of every group bound to the store.
extension SettingsStore {
  /// Registers settings; their keys become known (to the environment layer, to schema checks).
  func register(_ boxes: [any AnySettingBox]) {
    let (addedKeys, addedSecret) = state.withLock { state in
      var added: [String] = []
      var addedSecret = false
      for box in boxes {
        if state.registry[box.key] == nil {
          state.declared.add(box.key, isFlag: box.isFlag)
          added.append(box.key)
        }
        // Old names (aliases) are known keys too, so that their environment variables still work.
        for alias in box.aliases where !state.declared.contains(alias) {
          state.declared.add(alias)
          added.append(alias)
        }
        if box.traits.contains(.secret) && state.secretKeys.insert(box.key).inserted { addedSecret = true }
        state.registry[box.key, default: []].append(box)
      }
      return (added, addedSecret)
    }
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
      for box in boxes {
        state.registry[box.key]?.removeAll { $0 === box }
        if state.registry[box.key]?.isEmpty == true {
          state.registry[box.key] = nil
          state.declared.remove(box.key)
          for alias in box.aliases { state.declared.remove(alias) }
          state.settingDiagnostics[box.key] = nil
          state.secretKeys.remove(box.key)
        }
      }
    }
  }
}
