/// The settings a schema declares, registered in a store as the program's own groups would be, so that
/// a viewer of the program's files (`config-dump --watch --schema`) sees the values the program runs
/// with: a live edit that does not convert or validate keeps the running value (the store's `failed`
/// event says so), exactly as in the program, because it is the same code.
///
/// Restart-required settings are registered without that trait: the viewer shows what the files hold,
/// and marks those changes as pending a restart itself.
package final class SchemaRunningValues: Sendable {
  private let store: SettingsStore
  private let boxes: [SettingBox<SettingValue?>]

  /// Declares every setting of `schema` in `store` (checked by the schema's types, allowed values and
  /// bounds; secret ones redacted in messages), until this object is released.
  package init(schema: SettingsSchema, store: SettingsStore) {
    self.store = store
    boxes = schema.entries.map { entry in
      var defaultValue = entry.defaultValue
      defaultValue?.setOriginRecursively(.codeDefault)
      let coding = SettingCoding<SettingValue?>(
        decode: { (tree, key) throws(StrataError) -> SettingValue? in
          try schema.checked(tree, entry: entry, key: key)
        },
        encode: { $0 })
      let box = SettingBox<SettingValue?>(
        defaultValue: entry.isRequired ? nil : .some(defaultValue), key: nil, aliases: [],
        traits: entry.traits.subtracting(.restartRequired), attributes: SettingAttributes(), validation: nil,
        coding: coding)
      box.bind(store: store, key: entry.key, aliases: entry.aliases, propertyName: entry.key)
      return box
    }
    store.register(boxes)
  }

  deinit { store.unregister(boxes) }

  /// The declared keys whose running value a rejected live edit holds, each with that value (with its
  /// origin: where it was read before the edit).
  package var keptValues: [String: SettingValue] {
    var kept: [String: SettingValue] = [:]
    for box in boxes {
      let held: SettingValue? = box.readState { state in
        state.isHoldingLastGood ? state.value ?? nil : nil
      }
      if let held { kept[box.key] = held }
    }
    return kept
  }

  /// `snapshot` with the values kept over rejected edits (``keptValues``) on top, as the program's
  /// settings read them.
  package func holdingKeptValues(in snapshot: Snapshot) -> Snapshot {
    let kept = keptValues
    guard !kept.isEmpty else { return snapshot }
    var root = SettingValue.emptyTable(origin: .runtime)
    for (key, value) in kept { root.set(value, at: key) }
    let running = Snapshot.Source(
      scope: snapshot.sources.last?.scope ?? .defaults, document: Document(path: "running values", root: root)
    )
    return Snapshot(
      generation: snapshot.generation, sources: snapshot.sources + [running],
      diagnostics: snapshot.diagnostics,
      secretKeys: snapshot.declaredSecretKeys)
  }
}
