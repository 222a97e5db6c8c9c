/// The settings declared on a store: the boxes of every bound group by key, the declared keys with
/// their environment names (old names too), and the keys of secrets. A value kept in the store's state,
/// guarded by its lock.
struct SettingRegistry {
  /// The boxes by key (several groups may declare the same key).
  private(set) var boxes: [String: [any AnySettingBox]] = [:]
  /// Every declared key and alias, in declaration order.
  private(set) var declared = DeclaredKeys()
  /// The keys of `.secret` settings.
  private(set) var secretKeys: Set<String> = []

  /// The boxes declared for `key`.
  subscript(key: String) -> [any AnySettingBox]? { boxes[key] }

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
      for alias in box.aliases where !declared.contains(alias) {
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
