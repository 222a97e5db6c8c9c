/// Publishing a new snapshot: the settings it changes, and the events it means.
extension SettingsStore {
  /// Tells the registered settings about a new snapshot (outside all locks; a setting ignores a
  /// snapshot older than one it has seen). Only settings whose keys the change touched resolve again;
  /// the others, if they had seen `previous`, just move to the new generation with their cached value.
  func publish(_ snapshot: Snapshot, previous: Snapshot, affected: Set<String>) {
    let registry = state.withLock { state in state.registry.boxes }
    var applied: Set<String> = []
    var diagnostics: [String: [Diagnostic]] = [:]
    for (key, boxes) in registry {
      let isAffected = affected.contains(key)
      for box in boxes {
        if !isAffected && !box.readsAlias(in: affected)
          && box.advance(from: previous.generation, to: snapshot.generation)
        {
          continue
        }
        applied.insert(key)
        let found = box.apply(snapshot)
        if !found.isEmpty { diagnostics[key, default: []] += found }
      }
    }
    state.withLock { state in
      for key in applied { state.settingDiagnostics[key] = diagnostics[key] }
    }
  }

  /// Emits `reloaded` (when any leaf value changed) and `failed` (for each new error) events.
  func announce(_ changes: Snapshot.Changes, from previous: Snapshot, to current: Snapshot) {
    var files: [String] = []
    func note(_ path: String?) {
      if let path, !files.contains(path) { files.append(path) }
    }
    for key in changes.changedValues {
      let origin = current.entry(forKey: key)?.origin
      note(origin?.path ?? origin?.description)
      note(previous.entry(forKey: key)?.origin.path)
    }
    for key in changes.removed { note(previous.entry(forKey: key)?.origin.path) }
    let changed = changes.changedValues + changes.removed
    if !changed.isEmpty && previous.generation > 0 {
      emit(.reloaded(generation: current.generation, changedKeys: changed, files: files))
    }
    let known = Set(previous.diagnostics)
    for diagnostic in current.diagnostics where diagnostic.severity == .error && !known.contains(diagnostic) {
      emit(.failed(diagnostic.error))
    }
    let now = Set(current.diagnostics)
    for diagnostic in previous.diagnostics where diagnostic.severity == .error && !now.contains(diagnostic) {
      emit(.recovered(diagnostic.error))
    }
  }
}
