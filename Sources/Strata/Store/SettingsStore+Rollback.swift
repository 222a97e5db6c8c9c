import StrataPlatform

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// Rollback when the service turns unhealthy: a generation after which the program's health check
/// fails, within the window the program chose, is undone: the keys it changed get the values of the
/// last generation that was healthy, in a source above every layer (as a held group's values are),
/// until the operator ends it (`config-dump --running APP --unset KEY`) or edits the key again.
extension SettingsStore {
  /// A standing rollback: the values put back, why, and what the layers said of each key then (an edit
  /// that changes it ends the rollback of that key).
  struct Rollback: Sendable {
    /// The values of the last healthy generation, by key (a key that generation did not have: its
    /// setting's default).
    var values: [String: SettingValue]
    /// What the layers gave each key when it was rolled back (`nil`: nothing).
    var undone: [String: SettingValue?]
    /// Why, in words.
    var reason: String
    /// The generation rolled back to.
    var healthyGeneration: Int
  }

  /// What the health watch knows: the last generation seen healthy and its snapshot, and when each
  /// generation since was published.
  struct HealthRecord: Sendable {
    var healthy: Snapshot?
    var rollback: Rollback?
  }

  /// The path of the source that holds the rolled-back values.
  static let rollbackPath = "rollback"

  /// Takes one health check's answer: healthy, the current generation becomes the one to roll back to;
  /// unhealthy within `window` of a generation that changed values since the last healthy one, that
  /// generation is rolled back (once), with a `failed` event.
  func noteHealth(_ isHealthy: Bool, window: Duration, now: Date = Date()) async {
    let current = snapshot
    let (publishedAt, healthy, declared) = state.withLock { state in
      if isHealthy { state.health.healthy = current }
      let healthy = state.health.rollback == nil ? state.health.healthy : nil
      return (state.publishedAt, healthy, state.registry.declaredBoxes)
    }
    let windowSeconds = Double(window.components.seconds) + Double(window.components.attoseconds) / 1e18
    let elapsed = now.timeIntervalSince(publishedAt)
    guard !isHealthy, let healthy, healthy.generation < current.generation, elapsed <= windowSeconds else {
      return
    }
    var rollback = Self.rollback(from: current, to: healthy, declared: declared)
    guard !rollback.values.isEmpty else { return }
    let seconds = "\(Int(elapsed)).\(Int(elapsed * 10) % 10)"
    rollback.reason =
      "the service turned unhealthy \(seconds) s after generation \(current.generation); rolled back to "
      + "generation \(rollback.healthyGeneration): " + rollback.reason
    state.withLock { $0.health.rollback = rollback }
    await runPipeline(.reload([], fetched: [:], reportsDiagnostics: true))
    persistRollback()
    emit(.failed(StrataError(.invalidValue, rollback.reason)))
  }

  /// The rollback from `current` to `healthy`: each leaf key whose value differs (or that `healthy`
  /// lacks: its declared default, if it has one).
  private static func rollback(from current: Snapshot, to healthy: Snapshot, declared: [any AnySettingBox])
    -> Rollback
  {
    var values: [String: SettingValue] = [:]
    var undone: [String: SettingValue?] = [:]
    let defaults = Dictionary(
      declared.compactMap { box in box.defaultSettingValue.map { (box.key, $0) } },
      uniquingKeysWith: { a, _ in a })
    let before = Dictionary(healthy.entries.map { ($0.key, $0.value) }, uniquingKeysWith: { a, _ in a })
    let after = Dictionary(current.entries.map { ($0.key, $0.value) }, uniquingKeysWith: { a, _ in a })
    for key in Set(before.keys).union(after.keys).sorted() {
      let (old, new) = (before[key], after[key])
      guard old.map(ValueText.plain) != new.map(ValueText.plain) || old?.origin != new?.origin else {
        continue
      }
      // A key the healthy generation lacked goes back to its setting's default, as it read then.
      guard let restored = old ?? defaults[key].map({ SettingValue($0.kind, origin: .codeDefault) }) else {
        continue
      }
      values[key] = restored
      undone[key] = new
    }
    let shown = values.sorted { $0.key < $1.key }.prefix(5).map { key, value in
      "\(key) = \(current.isSecret(forKey: key) ? redactedText : ValueText.plain(value))"
    }
    return Rollback(
      values: values, undone: undone,
      reason: shown.joined(separator: ", ") + (values.count > 5 ? " and \(values.count - 5) more" : ""),
      healthyGeneration: healthy.generation)
  }

  /// The source that holds the rolled-back values, for a candidate built from `sources` (the layers'):
  /// a key whose layers' value changed since it was rolled back is an edit, which ends its rollback.
  /// Returns the source (`nil`: no rollback stands) and the event to tell when the last key ends.
  func rollbackSource(over candidate: Snapshot) -> (source: Snapshot.Source?, ended: StrataError?) {
    let (result, changed) = state.withLock { state -> ((Snapshot.Source?, StrataError?), Bool) in
      guard var rollback = state.health.rollback else { return ((nil, nil), false) }
      var changed = false
      for (key, undone) in rollback.undone {
        let now = candidate.entry(forKey: key)?.value
        if !Self.isUnchanged(now, since: undone) {
          rollback.values[key] = nil
          rollback.undone[key] = nil
          changed = true
        }
      }
      guard !rollback.values.isEmpty else {
        state.health.rollback = nil
        return ((nil, StrataError(.invalidValue, rollback.reason)), true)
      }
      state.health.rollback = rollback
      var tree = KeyTreeBuilder(origin: .runtime)
      for (key, value) in rollback.values { tree.set(value, atNames: SettingKey.names(in: key)) }
      let document = Document(path: Self.rollbackPath, root: tree.build())
      return ((Snapshot.Source(scope: .runtime, document: document), nil), changed)
    }
    if changed { persistRollback(secrets: candidate) }
    return result
  }

  /// Hands the standing rollback (or its end) to the history's writer, which keeps it in the state
  /// directory so that a restart keeps it too (``restoreRollback()``); `secrets` says which keys are
  /// secret (their values are not written). Nothing is kept for a store without a history.
  func persistRollback(secrets: Snapshot? = nil) {
    let (journal, rollback) = state.withLock { ($0.journal, $0.health.rollback) }
    guard let journal else { return }
    guard let rollback else { return journal.saveRollback(nil) }
    let secrets = secrets ?? snapshot
    var record = RollbackRecord(
      reason: rollback.reason, healthyGeneration: rollback.healthyGeneration, keys: [])
    for key in rollback.values.keys.sorted() {
      guard let value = rollback.values[key] else { continue }
      if secrets.isSecret(forKey: key) {
        record.secretKeys.append(key)
        continue
      }
      let undone = rollback.undone[key].flatMap { $0 }
      record.keys.append(
        RollbackRecord.Key(key: key, value: StoredValue(value), undone: undone.map(StoredValue.init)))
    }
    journal.saveRollback(record.keys.isEmpty ? nil : record)
  }

  /// Takes back the rollback that a run before a restart left standing (``RollbackRecord``): each key
  /// whose layers still give what was rolled back gets the value put back again, with its origin; a key
  /// edited since (its value or its place changed) is not rolled back any more. Called when a store of
  /// an app is made.
  func restoreRollback() {
    guard let directory = state.withLock({ $0.historyDirectory }) else { return }
    let resolved = stack.options.resolvePath(directory)
    guard let record = HistoryJournal.readRollback(directory: resolved) else { return }
    let current = snapshot
    var rollback = Rollback(
      values: [:], undone: [:], reason: record.reason, healthyGeneration: record.healthyGeneration)
    for key in record.keys {
      guard let value = key.value.value() else { continue }
      let undone = key.undone?.value()
      if key.undone != nil && undone == nil { continue }
      let now = current.entry(forKey: key.key)?.value
      guard Self.isUnchanged(now, since: undone) else {
        continue
      }
      rollback.values[key.key] = value
      rollback.undone.updateValue(undone, forKey: key.key)
    }
    guard !rollback.values.isEmpty else {
      unlink(joinPath(resolved, RollbackRecord.fileName))
      return
    }
    if !rollback.reason.hasPrefix(Self.restoredPrefix) {
      rollback.reason = Self.restoredPrefix + rollback.reason
    }
    state.withLock { $0.health.rollback = rollback }
    rebuild(reloading: [])
  }

  /// Whether the layers' value of a key, `now`, is still the one a rollback undid: the same text from the
  /// same place (an edit changes one or the other).
  static func isUnchanged(_ now: SettingValue?, since undone: SettingValue?) -> Bool {
    now.map(ValueText.plain) == undone.map(ValueText.plain) && now?.origin == undone?.origin
  }

  /// How the reason of a rollback kept across a restart begins.
  static let restoredPrefix = "kept across a restart: "

  /// A warning while a rollback stands (it keeps values the files do not give).
  var rollbackDiagnostics: [Diagnostic] {
    guard let rollback = state.withLock({ $0.health.rollback }) else { return [] }
    let keys = rollback.values.keys.sorted()
    return [
      Diagnostic(
        .warning,
        StrataError(
          .invalidValue,
          "a rollback stands (\(rollback.reason)); ending it takes `config-dump --running APP --unset KEY` "
            + "for each of \(keys.prefix(5).joined(separator: ", "))\(keys.count > 5 ? " and \(keys.count - 5) more" : ""), "
            + "or an edit of the key"))
    ]
  }

  /// Ends the rollback of `key` (`config-dump --unset KEY`); whether one stood.
  func endRollback(of key: String) -> Bool {
    let ended = state.withLock { state -> Bool in
      guard state.health.rollback?.values[key] != nil else { return false }
      state.health.rollback?.values[key] = nil
      state.health.rollback?.undone[key] = nil
      return true
    }
    if ended {
      rebuild(reloading: [])
      persistRollback()
    }
    return ended
  }

  /// The rollback standing now: the keys and values put back (secrets redacted), and why.
  var standingRollback: (values: [(key: String, value: String, origin: String)], reason: String)? {
    let current = snapshot
    guard let rollback = state.withLock({ $0.health.rollback }) else { return nil }
    let values = rollback.values.sorted { $0.key < $1.key }.map { key, value in
      (key, current.isSecret(forKey: key) ? redactedText : ValueText.plain(value), value.origin.description)
    }
    return (values, rollback.reason)
  }

  /// Checks the program's health every `interval` while the store runs (from the run loop's task group).
  func watchHealth(_ check: @escaping @Sendable () async -> Bool, window: Duration, interval: Duration) async
  {
    while !Task.isCancelled {
      let healthy = await check()
      if Task.isCancelled { return }
      await noteHealth(healthy, window: window)
      try? await Task.sleep(for: interval)
    }
  }
}
