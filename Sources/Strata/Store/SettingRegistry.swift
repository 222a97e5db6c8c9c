/// The settings declared on a store: the boxes of every bound group by key, the declared keys with
/// their environment names (old names too), and the keys of secrets. A value kept in the store's state,
/// guarded by its lock.
struct SettingRegistry {
  /// The first box of each key; a key that several groups declare has its others in `moreBoxes` (one
  /// dictionary value per setting, not a one-element array for each).
  private var firstBoxes: [String: any AnySettingBox] = [:]
  private var moreBoxes: [String: [any AnySettingBox]] = [:]
  /// The boxes by old key (alias), for the few renamed settings.
  private var boxesByAlias: [String: [any AnySettingBox]] = [:]
  /// Every declared key and alias, in declaration order.
  private(set) var declared = DeclaredKeys()
  /// The keys of `.secret` settings.
  private(set) var secretKeys: Set<String> = []

  /// The boxes declared for `key`.
  subscript(key: String) -> [any AnySettingBox]? {
    firstBoxes[key].map { [$0] + (moreBoxes[key] ?? []) }
  }

  /// Every box.
  var allBoxes: [any AnySettingBox] { Array(firstBoxes.values) + moreBoxes.values.flatMap { $0 } }

  /// The boxes that read any of `keys`, as their key or as an old key, each once.
  func boxes(reading keys: Set<String>) -> [any AnySettingBox] {
    var found: [any AnySettingBox] = []
    for key in keys {
      guard let first = firstBoxes[key] else { continue }
      found.append(first)
      if let more = moreBoxes[key] { found += more }
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
  var declaredBoxes: [any AnySettingBox] { declared.keys.compactMap { firstBoxes[$0] } }

  /// Adds boxes.
  /// - Returns: the keys (and old names) that became known, and whether a new secret key was added.
  mutating func add(_ new: [any AnySettingBox]) -> (keys: [String], addedSecret: Bool) {
    var added: [String] = []
    var addedSecret = false
    for box in new {
      if firstBoxes[box.key] == nil {
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
      if firstBoxes[box.key] == nil {
        firstBoxes[box.key] = box
      } else {
        moreBoxes[box.key, default: []].append(box)
      }
    }
    return (added, addedSecret)
  }

  /// Removes boxes (a group was released or re-bound).
  /// - Returns: the keys no box declares any more.
  mutating func remove(_ old: [any AnySettingBox]) -> [String] {
    var removed: [String] = []
    for box in old {
      var remaining = (self[box.key] ?? []).filter { $0 !== box }
      firstBoxes[box.key] = remaining.isEmpty ? nil : remaining.removeFirst()
      moreBoxes[box.key] = remaining.isEmpty ? nil : remaining
      for alias in box.aliases {
        boxesByAlias[alias]?.removeAll { $0 === box }
        if boxesByAlias[alias]?.isEmpty == true { boxesByAlias[alias] = nil }
      }
      guard firstBoxes[box.key] == nil else { continue }
      declared.remove(box.key)
      for alias in box.aliases { declared.remove(alias) }
      secretKeys.remove(box.key)
      removed.append(box.key)
    }
    return removed
  }

  /// The first key declared read-only at, above or inside `key`.
  func readOnlyKey(touching key: String) -> String? {
    allBoxes.first { box in
      box.traits.contains(.readOnly)
        && (SettingKey.isKey(box.key, within: key) || SettingKey.isKey(key, within: box.key))
    }?.key
  }
}
