/// Publishing a new snapshot: the settings it changes, and the events it means.
extension SettingsStore {
  /// Tells the settings whose keys (or old keys) the change touched about a new snapshot (outside all
  /// locks; a setting ignores a snapshot older than one it has seen). The others are not visited: the
  /// change log tells them on their next read that their cached value still holds.
  func publish(_ snapshot: Snapshot, changes: Snapshot.Changes) {
    changeLog.record(generation: snapshot.generation, affected: changes.everything ? nil : changes.affected)
    let boxes = state.withLock { state in
      changes.everything ? state.registry.allBoxes : state.registry.boxes(reading: changes.affected)
    }
    var diagnostics: [String: [Diagnostic]] = [:]
    for box in boxes {
      let found = box.apply(snapshot)
      diagnostics[box.key, default: []] += found
    }
    state.withLock { state in
      for (key, found) in diagnostics { state.settingDiagnostics[key] = found.isEmpty ? nil : found }
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
