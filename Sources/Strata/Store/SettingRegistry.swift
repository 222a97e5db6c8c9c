/// The settings declared on a store: the boxes of every bound group by key, the declared keys with
/// their environment names (old names too), and the keys of secrets. A value kept in the store's state,
/// guarded by its lock.
struct SettingRegistry {
  /// The boxes by key (several groups may declare the same key).
  private(set) var boxes: [String: [any AnySettingBox]] = [:]
  /// The boxes by old key (alias), for the few renamed settings.
  private var boxesByAlias: [String: [any AnySettingBox]] = [:]
  /// Every declared key and alias, in declaration order.
  private(set) var declared = DeclaredKeys()
  /// The keys of `.secret` settings.
  private(set) var secretKeys: Set<String> = []

  /// The boxes declared for `key`.
  subscript(key: String) -> [any AnySettingBox]? { boxes[key] }

  /// Every box.
  var allBoxes: [any AnySettingBox] { boxes.values.flatMap { $0 } }

  /// The boxes that read any of `keys`, as their key or as an old key, each once.
  func boxes(reading keys: Set<String>) -> [any AnySettingBox] {
    var found: [any AnySettingBox] = []
    for key in keys {
      if let declared = boxes[key] { found += declared }
    }
    guard !boxesByAlias.isEmpty else { return found }
    var seen = Set(found.map(ObjectIdentifier.init))
    for key in keys {
      for box in boxesByAlias[key] ?? [] where seen.insert(ObjectIdentifier(box)).inserted {
        found.append(box)
      }
    }
    return found
  }

  /// The first box of each declared key, in declaration order (what the schema describes).
  var declaredBoxes: [any AnySettingBox] { declared.keys.compactMap { boxes[$0]?.first } }

  /// Adds boxes.
  /// - Returns: the keys (and old names) that became known, and whether a new secret key was added.
  mutating func add(_ new: [any AnySettingBox]) -> (keys: [String], addedSecret: Bool) {
    var added: [String] = []
    var addedSecret = false
    for box in new {
      if boxes[box.key] == nil {
        declared.add(box.key, isFlag: box.isFlag)
        added.append(box.key)
      }
      // Old names (aliases) are known keys too, so that their environment variables still work.
      for alias in box.aliases {
        boxesByAlias[alias, default: []].append(box)
        guard !declared.contains(alias) else { continue }
        declared.add(alias)
        added.append(alias)
      }
      if box.traits.contains(.secret) && secretKeys.insert(box.key).inserted { addedSecret = true }
      boxes[box.key, default: []].append(box)
    }
    return (added, addedSecret)
  }

  /// Removes boxes (a group was released or re-bound).
  /// - Returns: the keys no box declares any more.
  mutating func remove(_ old: [any AnySettingBox]) -> [String] {
    var removed: [String] = []
    for box in old {
      boxes[box.key]?.removeAll { $0 === box }
      for alias in box.aliases {
        boxesByAlias[alias]?.removeAll { $0 === box }
        if boxesByAlias[alias]?.isEmpty == true { boxesByAlias[alias] = nil }
      }
      guard boxes[box.key]?.isEmpty == true else { continue }
      boxes[box.key] = nil
      declared.remove(box.key)
      for alias in box.aliases { declared.remove(alias) }
      secretKeys.remove(box.key)
      removed.append(box.key)
    }
    return removed
  }

  /// The first key declared read-only at, above or inside `key`.
  func readOnlyKey(touching key: String) -> String? {
    boxes.first { entry in
      entry.value.contains { $0.traits.contains(.readOnly) }
        && (SettingKey.isKey(entry.key, within: key) || SettingKey.isKey(key, within: entry.key))
    }?.key
  }
}
