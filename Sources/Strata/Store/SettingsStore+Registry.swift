/// The registry of declared settings: the boxes of every group bound to the store.
extension SettingsStore {
  /// Registers settings; their keys become known (to the environment layer, to schema checks). They
  /// are given the current snapshot through the store's loop, after any generation being published now.
  func register(_ boxes: [any AnySettingBox]) {
    let (addedKeys, addedSecret) = state.withLock { $0.registry.add(boxes) }
    // A fallback store holds only defaults: its settings resolve at their first read, which warns
    // (see ``FallbackStore``); a nested group moves to its parent's store before any read.
    guard fallbackGroup == nil else { return }
    // New keys may give meaning to environment variables or options that were unknown until now; new
    // secrets must be redacted by the published snapshot.
    let reloads = addedSecret || (!addedKeys.isEmpty && layersMayChange(declaring: addedKeys))
    runPipeline(
      PipelineWork(
        reload: reloads ? PipelineWork.Reload(layers: [], reportsDiagnostics: false) : nil, settle: boxes))
  }

  /// Whether a layer that reads the declared keys may load otherwise now that `added` were declared: a
  /// layer that cannot tell (one of the program's own, or one not loaded yet) may.
  private func layersMayChange(declaring added: [String]) -> Bool {
    guard stack.layers.contains(where: \.readsLowerLayers) else { return false }
    let (contents, declared) = state.withLock { ($0.contents, $0.registry.declared) }
    return stack.layers.indices.contains { index in
      let layer = stack.layers[index]
      guard layer.readsLowerLayers else { return false }
      guard let dependent = layer as? any DeclarationDependentLayer, let last = contents[index] else {
        return true
      }
      return dependent.mayChange(declaring: added, declared: declared, options: stack.options, last: last)
    }
  }

  /// Gives newly registered settings the current snapshot (on the store's loop).
  func settle(_ boxes: [any AnySettingBox]) {
    let snapshot = self.snapshot
    var diagnostics: [String: [Diagnostic]] = [:]
    for box in boxes {
      if let applied = box.apply(snapshot), !applied.diagnostics.isEmpty {
        diagnostics[box.key] = applied.diagnostics
      }
    }
    state.withLock { state in
      for (key, found) in diagnostics { state.settingDiagnostics[key] = found }
    }
    // The new settings' own problems are told now; keys they leave unknown, when the run loop starts.
    if hasEventListeners { report(diagnostics.keys.sorted().flatMap { diagnostics[$0] ?? [] }) }
  }

  /// Forgets settings (a group was released or re-bound).
  func unregister(_ boxes: [any AnySettingBox]) {
    state.withLock { state in
      for key in state.registry.remove(boxes) { state.settingDiagnostics[key] = nil }
    }
  }
}
