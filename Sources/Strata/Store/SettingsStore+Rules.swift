/// Rules across a group's settings (``SettingsGroup/rules``): judged on each candidate generation
/// before it is published. A group that breaks one keeps its running values as part of the generation
/// itself (a source above every layer that holds them), so that every read of that generation, cached,
/// pinned or resolved, sees them, and no generation pairs values that break a rule.
extension SettingsStore {
  /// What judging the rules for one candidate generation decided.
  struct RuleVerdicts {
    /// Groups that break a rule with the candidate's values: the error, and whether it is new.
    var held: [(owner: ObjectIdentifier, error: StrataError, isNew: Bool)] = []
    /// Groups that broke a rule and keep them all again: the error that cleared.
    var released: [(owner: ObjectIdentifier, error: StrataError)] = []
    /// The running values of the held groups' settings, as a tree, for the source above every layer
    /// (`nil`: no group is held).
    var heldValues: SettingValue?
    /// A rollback that the candidate's edits ended (``SettingsStore/rollbackSource(over:)``).
    var rollbackEnded: StrataError?
  }

  /// The path of the source that holds a held group's running values.
  static let heldValuesPath = "rules"

  /// Registers a made group's rules and judges them against the current snapshot: a group made
  /// breaking one is reported by ``diagnostics`` and ``requireAll()`` (it has no running values to
  /// keep yet).
  func registerRules(_ rules: GroupRules, owner: ObjectIdentifier) {
    let broken = rules.judge(snapshot)
    state.withLock { state in
      state.rules[owner] = rules
      state.brokenRules[owner] = broken
    }
    if let broken, hasEventListeners { emit(.diagnosed(Diagnostic(.error, broken))) }
  }

  /// Forgets a released group's rules.
  func unregisterRules(owner: ObjectIdentifier) {
    state.withLock { state in
      state.rules[owner] = nil
      state.brokenRules[owner] = nil
    }
  }

  /// Judges the rules of each group that `changes` touches, or that breaks a rule now, against the
  /// candidate generation (without held values): the groups that break one, with their settings'
  /// running values to hold, and those that keep them all again.
  func judgeRules(_ candidate: Snapshot, _ changes: Snapshot.Changes) -> RuleVerdicts {
    let (all, broken) = state.withLock { ($0.rules, $0.brokenRules) }
    var verdicts = RuleVerdicts()
    guard !all.isEmpty else { return verdicts }
    var held = KeyTreeBuilder(origin: .runtime)
    for (owner, rules) in all where broken[owner] != nil || rules.isAffected(by: changes) {
      if var error = rules.judge(candidate) {
        error.message += "; the group keeps its running values"
        for setting in rules.settings {
          let running = setting.currentValue()
          guard var value = running.value else { continue }
          value.origin = running.origin
          held.set(value, atNames: SettingKey.names(in: setting.key))
        }
        verdicts.held.append((owner, error, broken[owner]?.description != error.description))
      } else if let was = broken[owner] {
        verdicts.released.append((owner, was))
      }
    }
    if !verdicts.held.isEmpty { verdicts.heldValues = held.build() }
    return verdicts
  }

  /// Records the verdicts of the generation just published; returns the events to tell after its own:
  /// `failed` for a group that breaks a rule (again, when what it read changed), `recovered` for one
  /// that keeps them all again.
  func finishRules(_ verdicts: RuleVerdicts) -> [StoreEvent] {
    state.withLock { state in
      for (owner, _) in verdicts.released { state.brokenRules[owner] = nil }
      for (owner, error, _) in verdicts.held where state.rules[owner] != nil {
        state.brokenRules[owner] = error
      }
    }
    return verdicts.released.map { .recovered($0.error) }
      + verdicts.held.filter(\.isNew).map { .failed($0.error) }
      + (verdicts.rollbackEnded.map { [.recovered($0)] } ?? [])
  }

  /// The groups whose rules `snapshot`'s values break (for a plan): each one's keys, and why.
  func groupsBreakingRules(in snapshot: Snapshot) -> [(keys: Set<String>, error: StrataError)] {
    let all = state.withLock { $0.rules }
    return all.values.compactMap { rules in rules.judge(snapshot).map { (rules.keys, $0) } }
      .sorted { $0.error.description < $1.error.description }
  }

  /// The keys of the groups `verdicts` holds.
  func heldKeys(_ verdicts: RuleVerdicts) -> Set<String> {
    guard !verdicts.held.isEmpty else { return [] }
    let rules = state.withLock { $0.rules }
    return verdicts.held.reduce(into: []) { keys, held in keys.formUnion(rules[held.owner]?.keys ?? []) }
  }

  /// Why the groups that break their rules now do, as errors.
  var brokenRuleDiagnostics: [Diagnostic] {
    state.withLock { $0.brokenRules.values.map { Diagnostic(.error, $0) } }
      .sorted { $0.description < $1.description }
  }
}
