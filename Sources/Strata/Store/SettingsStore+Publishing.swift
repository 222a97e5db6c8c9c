/// Publishing a new snapshot: the settings it changes, and the events it means.
extension SettingsStore {
  /// Tells the settings whose keys (or old keys) the change touched about a new snapshot (on the
  /// store's loop, outside all locks). The others are not visited: the change log tells them on their next
  /// read that their cached value still holds.
  /// - Returns: the keys (and old keys) of settings that kept their running value although the layers
  ///   changed under them (a rejected edit, a pending restart): no `reloaded` event names them.
  func publish(_ snapshot: Snapshot, changes: Snapshot.Changes) -> [String] {
    changeLog.record(generation: snapshot.generation, affected: changes.everything ? nil : changes.affected)
    let boxes = state.withLock { state in
      changes.everything ? state.registry.allBoxes : state.registry.boxes(reading: changes.affected)
    }
    var diagnostics: [String: [Diagnostic]] = [:]
    var kept: [String] = []
    for box in boxes {
      guard let applied = box.apply(snapshot) else { continue }
      diagnostics[box.key, default: []] += applied.diagnostics
      if applied.keptRunningValue { kept += [box.key] + box.aliases }
    }
    state.withLock { state in
      for (key, found) in diagnostics { state.settingDiagnostics[key] = found.isEmpty ? nil : found }
    }
    return kept
  }

  /// Emits `reloaded` (when any running value changed: leaf keys under a setting in `keptKeys` kept
  /// theirs, and a rejected edit is told by its `rejected` event alone) and `failed` and `recovered`
  /// events for the files' errors.
  func announce(
    _ changes: Snapshot.Changes, from previous: Snapshot, to current: Snapshot, keptKeys: [String] = []
  ) {
    // The keys and files of a `reloaded` event nobody receives are not gathered (10,000 keys read at
    // once from a remote source are 10,000 "files").
    if previous.generation > 0 && hasEventListeners,
      let event = reloadedEvent(changes, from: previous, to: current, keptKeys: keptKeys)
    {
      emit(event)
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

  /// Whether anyone receives the store's events.
  var hasEventListeners: Bool {
    eventHub.hasListeners
  }

  /// The `reloaded` event of `changes` (`nil`: no running value changed).
  private func reloadedEvent(
    _ changes: Snapshot.Changes, from previous: Snapshot, to current: Snapshot, keptKeys: [String]
  ) -> StoreEvent? {
    func isKept(_ key: String) -> Bool {
      keptKeys.contains {
        key == $0 || (key.hasPrefix($0) && key.utf8.dropFirst($0.utf8.count).first == UInt8(ascii: "."))
      }
    }
    // In order, each once; the set finds a repeat (a remote source names one "file" per key: 10,000
    // keys found in an array would cost 50 million comparisons).
    var files: [String] = []
    var noted: Set<String> = []
    noted.reserveCapacity(changes.changedValues.count + changes.removed.count)
    func note(_ path: String?) {
      if let path, noted.insert(path).inserted { files.append(path) }
    }
    var changedValues: [String] = []
    if let origins = changes.changedOrigins {
      // Every key is new: each one's origin came with it.
      for (key, origin) in zip(changes.changedValues, origins) where keptKeys.isEmpty || !isKept(key) {
        changedValues.append(key)
        note(origin.path ?? origin.description)
      }
    } else {
      changedValues = keptKeys.isEmpty ? changes.changedValues : changes.changedValues.filter { !isKept($0) }
      for key in changedValues {
        let origin = current.entry(forKey: key)?.origin
        note(origin?.path ?? origin?.description)
        note(previous.entry(forKey: key)?.origin.path)
      }
    }
    let removed = keptKeys.isEmpty ? changes.removed : changes.removed.filter { !isKept($0) }
    for key in removed { note(previous.entry(forKey: key)?.origin.path) }
    let changed = changedValues + removed
    return changed.isEmpty
      ? nil : .reloaded(generation: current.generation, changedKeys: changed, files: files)
  }
}
