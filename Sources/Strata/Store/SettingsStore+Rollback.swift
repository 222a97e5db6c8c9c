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
    state.withLock { state in
      guard var rollback = state.health.rollback else { return (nil, nil) }
      for (key, undone) in rollback.undone {
        let now = candidate.entry(forKey: key)?.value
        if now.map(ValueText.plain) != undone.map(ValueText.plain) || now?.origin != undone?.origin {
          rollback.values[key] = nil
          rollback.undone[key] = nil
        }
      }
      guard !rollback.values.isEmpty else {
        state.health.rollback = nil
        return (nil, StrataError(.invalidValue, rollback.reason))
      }
      state.health.rollback = rollback
      var tree = KeyTreeBuilder(origin: .runtime)
      for (key, value) in rollback.values { tree.set(value, atNames: SettingKey.names(in: key)) }
      let document = Document(path: Self.rollbackPath, root: tree.build())
      return (Snapshot.Source(scope: .runtime, document: document), nil)
    }
  }

  /// Ends the rollback of `key` (`config-dump --unset KEY`); whether one stood.
  func endRollback(of key: String) -> Bool {
    let ended = state.withLock { state -> Bool in
      guard state.health.rollback?.values[key] != nil else { return false }
      state.health.rollback?.values[key] = nil
      state.health.rollback?.undone[key] = nil
      return true
    }
    if ended { rebuild(reloading: []) }
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
