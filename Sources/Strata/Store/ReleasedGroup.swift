/// A group released before ``SettingsStore/requireAll()`` ran, most often made and dropped at once
/// (`_ = DatabaseSettings(store: store)`): its settings are no longer declared, so the store forgets
/// them, but it keeps this note, so that `requireAll()` still checks the group's required keys and
/// ``SettingsStore/diagnostics`` says what happened.
struct ReleasedGroup: Sendable, Hashable {
  /// The group's type, such as `DatabaseSettings`.
  var typeName: String
  /// Its section, such as `database`.
  var section: String
  /// The key of its first setting: while a live group declares it, the group was made again.
  var firstKey: String
  /// The keys of its required settings (nested groups' too).
  var requiredKeys: [String]

  /// How many released groups a store keeps a note of: a program that makes groups at run time
  /// without calling `requireAll()` must not grow a list without end.
  static let limit = 16

  /// `DatabaseSettings (section 'database')`.
  var name: String { "\(typeName) (section '\(section)')" }

  /// How to keep the group: `let database = DatabaseSettings(store: store)`.
  var fix: String {
    let variable =
      SettingKey.names(in: section).last.map { SettingKey.Style.asDeclared.key(for: $0) } ?? "group"
    return "keep it for as long as the program reads it: `let \(variable) = \(typeName)(store: store)`"
  }
}

extension SettingsStore {
  /// Whether a group released now is noted: before `requireAll()` ran, on a store the program made.
  var notesReleasedGroups: Bool {
    fallbackGroup == nil
      && !state.withLock { $0.hasRequiredAll || $0.releasedGroups.count >= ReleasedGroup.limit }
  }

  /// Notes that a group was released (its deinit), when that happens before `requireAll()` ran.
  func noteReleased(_ group: ReleasedGroup) {
    state.withLock { state in
      guard !state.hasRequiredAll, state.releasedGroups.count < ReleasedGroup.limit,
        !state.releasedGroups.contains(group)
      else { return }
      state.releasedGroups.append(group)
    }
  }

  /// The released groups that no live group of the same keys replaces.
  var releasedGroups: [ReleasedGroup] {
    state.withLock { state in state.releasedGroups.filter { state.registry[$0.firstKey] == nil } }
  }

  /// A warning for each group released before `requireAll()` whose settings no live group declares.
  var releasedGroupDiagnostics: [Diagnostic] {
    releasedGroups.map { group in
      Diagnostic(
        .warning,
        StrataError(
          .misuse,
          "\(group.name) was released before requireAll(), so its settings are no longer declared: their "
            + "keys read as unknown and nothing reloads them; " + group.fix))
    }
  }
}
