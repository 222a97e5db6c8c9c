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
    /// What linked sets did: held (a note), or published alone after the wait (a warning).
    var linkEvents: [StoreEvent] = []
    /// When the earliest linked set held by this generation stops waiting (the store looks again then).
    var linkDeadline: ContinuousClock.Instant?
  }

  /// A set of linked settings held: their running values when the first of them changed, and until
  /// when the others may follow.
  struct LinkHold: Sendable {
    var running: [SettingValue?]
    var deadline: ContinuousClock.Instant
  }

  /// How long a linked set waits for its other settings to change.
  static let linkWait = Duration.seconds(5)

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
    let (all, broken, holds) = state.withLock { ($0.rules, $0.brokenRules, $0.linkHolds) }
    var verdicts = RuleVerdicts()
    guard !all.isEmpty else { return verdicts }
    var held = KeyTreeBuilder(origin: .runtime)
    var isHolding = false
    let current = snapshot
    for (_, rules) in all where !rules.links.isEmpty {
      for link in rules.links where holds[link] != nil || rules.isAffected(by: changes) {
        let (running, holding) = judgeLink(link, candidate: candidate, current: current, verdicts: &verdicts)
        guard holding else { continue }
        isHolding = true
        for (key, value) in zip(link, running) {
          if let value { held.set(value, atNames: SettingKey.names(in: key)) }
        }
      }
    }
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
    if !verdicts.held.isEmpty || isHolding { verdicts.heldValues = held.build() }
    return verdicts
  }

  /// Judges one linked set against the candidate: returns the running values to hold, and whether to
  /// hold them. A set some of whose settings changed (and not all) is held from then on; a held set is
  /// published once every setting changed, or alone, with a warning, once the wait is over.
  private func judgeLink(
    _ link: [String], candidate: Snapshot, current: Snapshot, verdicts: inout RuleVerdicts
  ) -> (running: [SettingValue?], holding: Bool) {
    func same(_ a: SettingValue?, _ b: SettingValue?) -> Bool {
      a.map(ValueText.plain) == b.map(ValueText.plain)
    }
    let now = ContinuousClock.now
    let proposed = link.map { candidate.value(forKey: $0) }
    let hold = state.withLock { $0.linkHolds[link] }
    let names = link.joined(separator: ", ")
    if let hold {
      let changed = zip(link, zip(hold.running, proposed)).filter { !same($1.0, $1.1) }.map(\.0)
      if changed.count == link.count || changed.isEmpty {
        // All followed (published together), or the first change was undone (nothing to publish).
        state.withLock { $0.linkHolds[link] = nil }
        return ([], false)
      }
      if now >= hold.deadline {
        state.withLock { $0.linkHolds[link] = nil }
        verdicts.linkEvents.append(
          .diagnosed(
            Diagnostic(
              .warning,
              StrataError(
                .invalidValue,
                "linked settings \(names): only \(changed.joined(separator: ", ")) changed within "
                  + "\(Self.linkWait); published alone"))))
        return ([], false)
      }
      return (hold.running, true)
    }
    let running = link.map { current.value(forKey: $0) }
    let changed = zip(link, zip(running, proposed)).filter { !same($1.0, $1.1) }.map(\.0)
    guard !changed.isEmpty, changed.count < link.count else { return ([], false) }
    let deadline = now + Self.linkWait
    state.withLock { $0.linkHolds[link] = LinkHold(running: running, deadline: deadline) }
    verdicts.linkDeadline = min(verdicts.linkDeadline ?? deadline, deadline)
    verdicts.linkEvents.append(
      .diagnosed(
        Diagnostic(
          .note,
          StrataError(
            .invalidValue,
            "linked settings \(names): \(changed.joined(separator: ", ")) changed; held at the running "
              + "values until the others change too (at most \(Self.linkWait))"))))
    return (running, true)
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
    if let deadline = verdicts.linkDeadline {
      // The store looks again when the wait is over, edit or not.
      Task { [self] in
        try? await Task.sleep(until: deadline)
        await runPipeline(.reload([], fetched: [:], reportsDiagnostics: true))
      }
    }
    return verdicts.linkEvents + verdicts.released.map { .recovered($0.error) }
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
