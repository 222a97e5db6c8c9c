/// A made group's rules across its settings (``SettingsGroup/rules``), as its store judges them: on
/// each generation that changes one of its keys, and on each while a rule is broken.
final class GroupRules: Sendable {
  /// The group's type, for messages.
  let typeName: String
  /// The keys (and old keys) of the group's settings: a generation that changes none of them leaves
  /// the rules as they were.
  let keys: Set<String>
  /// The group's settings (the group's lifetime's deinit forgets the rules).
  let settings: [any AnySettingBox]
  /// Why the group breaks its rules in a snapshot (`nil`: it keeps them).
  let judge: @Sendable (Snapshot) -> StrataError?
  /// Whether a group's rules are being judged: the copies of groups made for it declare none.
  @TaskLocal static var isProbing = false

  /// The full keys of each set of settings that change together (``SettingsGroup/linked``).
  let links: [[String]]

  init(
    typeName: String, boxes: [any AnySettingBox], links: [[String]] = [],
    judge: @escaping @Sendable (Snapshot) -> StrataError?
  ) {
    self.typeName = typeName
    self.links = links
    self.keys = Set(boxes.flatMap { [$0.key] + $0.aliases })
    self.settings = boxes
    self.judge = judge
  }

  /// The groups nested in `group`, at any depth, in declaration order.
  static func nestedGroups(of group: any SettingsGroup) -> [any SettingsGroup] {
    Mirror(reflecting: group).children.flatMap { child -> [any SettingsGroup] in
      guard let nested = child.value as? any SettingsGroup else { return [] }
      return [nested] + nestedGroups(of: nested)
    }
  }

  /// Whether `changes` may change what the rules see.
  func isAffected(by changes: Snapshot.Changes) -> Bool {
    changes.everything || !keys.isDisjoint(with: changes.affected)
  }
}

extension SettingsGroup {
  /// Why this group, in `section`, breaks its rules in `snapshot`: each broken rule with the settings
  /// it read, their values (secrets redacted) and origins; `nil` when it keeps them all. The rules run
  /// on a copy of the group over the snapshot's values for the section, so they see each value as a
  /// read would (converted and validated), never the running one.
  ///
  /// A nested group's rules are judged with its parent's, on the copy's nested group: a broken one is
  /// named with the nested group's type (`'LimitSettings: soft <= hard'`).
  ///
  /// A setting whose value in `snapshot` is rejected (it does not convert or validate) keeps its running
  /// value, as the group's own setting does (`running` are its settings): the copy reads that value too,
  /// so that the rules judge what the service would run.
  static func brokenRules(
    in snapshot: Snapshot, section: String, typeName: String, running: [any AnySettingBox] = []
  ) -> StrataError? {
    var kept = KeyTreeBuilder(origin: .runtime)
    var keepsAny = false
    for box in running where box.resolvedWithoutApplying(in: snapshot).rejection != nil {
      let (value, origin) = box.currentValue()
      guard let value else { continue }
      kept.set(SettingValue(value.kind, origin: origin), atNames: SettingKey.names(in: box.key))
      keepsAny = true
    }
    var layers: [any Layer] = [StaticLayer(scope: .defaults, root: Self.values(of: section, in: snapshot))]
    if keepsAny { layers.append(StaticLayer(scope: .runtime, name: "running", root: kept.build())) }
    let probe = SettingsStore(layers: layers)
    let group = Self(store: probe, section: section)
    let settings = GroupLayout.boxes(of: group).map(\.box)
    var first: Origin?
    var broken = group.brokenOwnRules(settings: settings, first: &first, named: false)
    for nested in GroupRules.nestedGroups(of: group) {
      broken += nested.brokenOwnRules(settings: settings, first: &first, named: true)
    }
    guard !broken.isEmpty else { return nil }
    var error = StrataError(
      .invalidValue,
      "\(typeName) (section \(section)) breaks "
        + (broken.count == 1 ? "its rule " : "\(broken.count) of its rules: ")
        + broken.joined(separator: "; "))
    if case .file(let path, let line, let column) = first {
      (error.path, error.line, error.column) = (path, line, column)
    }
    return error
  }

  /// This group's own rules that it breaks, each with the settings it read (of `settings`, the whole
  /// probed group's), their values and origins; `first` is set to the first such value's file origin.
  /// `named`: each rule is prefixed with this group's type (a nested group's rules).
  private func brokenOwnRules(settings: [any AnySettingBox], first: inout Origin?, named: Bool) -> [String] {
    var broken: [String] = []
    for rule in Self.rules {
      for setting in settings { setting.forgetReads() }
      guard !rule.check(self) else { continue }
      let involved = settings.filter(\.wasReadByProgram)
      let values = involved.map { setting in
        let (text, origin) = setting.currentText()
        if first == nil, case .file = origin { first = origin }
        return "\(setting.key) = \(text) (\(origin))"
      }
      let name = named ? "\(Self.self): " : ""
      broken.append(
        "'\(name)\(rule.summary)'" + (values.isEmpty ? "" : ": " + values.joined(separator: ", ")))
    }
    return broken
  }

  /// Whether this group's type declares rules (its nested groups' aside).
  var hasOwnRules: Bool { !Self.rules.isEmpty }

  /// Whether this group's type declares linked sets (its nested groups' aside).
  var hasOwnLinks: Bool { !Self.linked.isEmpty }

  /// The full keys of the settings each of ``linked``'s sets names, in `section`, this group's and its
  /// nested groups' (a key path that reads no setting, or several, names none): found by reading each
  /// through a copy of the group.
  static func linkedKeys(section: String) -> [[String]] {
    let group = Self(store: .inMemory(), section: section)
    let settings = GroupLayout.boxes(of: group).map(\.box)
    var sets = group.ownLinkedKeys(settings: settings)
    for nested in GroupRules.nestedGroups(of: group) { sets += nested.ownLinkedKeys(settings: settings) }
    return sets
  }

  /// The full keys of this group's own ``linked`` sets, found among `settings` (the whole copy's).
  private func ownLinkedKeys(settings: [any AnySettingBox]) -> [[String]] {
    Self.linked.map { set in
      set.compactMap { keyPath -> String? in
        for setting in settings { setting.forgetReads() }
        _ = self[keyPath: keyPath]
        let read = settings.filter(\.wasReadByProgram)
        return read.count == 1 ? read[0].key : nil
      }
    }.filter { $0.count > 1 }
  }

  /// The snapshot's values under `section`, in a table that holds only them, at their place.
  private static func values(of section: String, in snapshot: Snapshot) -> SettingValue {
    guard !section.isEmpty else { return snapshot.root }
    var tree = snapshot.value(forKey: section) ?? .emptyTable(origin: .runtime)
    for name in SettingKey.names(in: section).reversed() {
      tree = SettingValue(.table(SettingTable([(name, tree)])), origin: .runtime)
    }
    return tree
  }
}
