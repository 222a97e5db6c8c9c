/// The settings declared on a store: the boxes of every bound group by key, the declared keys with
/// their environment names (old names too), and the keys of secrets. A value kept in the store's state,
/// guarded by its lock.
///
/// A key is stored once, in ``declared``; the boxes are found through it (a key's position there).
struct SettingRegistry {
  /// The first box of each declared key, at the key's position in `declared.keys` (`nil` at the
  /// position of an old name, or of a key declared as one before); a key that several groups declare has
  /// its others in `moreBoxes` (one array element per setting, not a one-element array for each).
  private var firstBoxes: [(any AnySettingBox)?] = []
  private var moreBoxes: [String: [any AnySettingBox]] = [:]
  /// The boxes by old key (alias), for the few renamed settings.
  private var boxesByAlias: [String: [any AnySettingBox]] = [:]
  /// Every declared key and alias, in declaration order.
  private(set) var declared = DeclaredKeys()
  /// The keys of `.secret` settings.
  private(set) var secretKeys: Set<String> = []

  /// The position of `key`'s first box in `firstBoxes` (`name`: the key's generated name).
  private func position(of key: String, named name: String) -> Int? {
    declared.firstPosition(of: key, named: name) { firstBoxes[$0] != nil }
  }

  private func position(of key: String) -> Int? {
    position(of: key, named: EnvironmentNames.unprefixedName(forKey: key))
  }

  /// The boxes declared for `key`.
  subscript(key: String) -> [any AnySettingBox]? {
    position(of: key).flatMap { firstBoxes[$0] }.map { [$0] + (moreBoxes[key] ?? []) }
  }

  /// Every box.
  var allBoxes: [any AnySettingBox] { declaredBoxes + moreBoxes.values.flatMap { $0 } }

  /// The boxes that read any of `keys`, as their key or as an old key, each once.
  func boxes(reading keys: Set<String>) -> [any AnySettingBox] {
    var found: [any AnySettingBox] = []
    for key in keys {
      guard let first = position(of: key).flatMap({ firstBoxes[$0] }) else { continue }
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
  var declaredBoxes: [any AnySettingBox] { firstBoxes.compactMap { $0 } }

  /// Declares `key` (generated name `name`) with `box` (`nil`: an old name) at the next position.
  private mutating func declare(
    _ key: String, named name: String, isFlag: Bool, isList: Bool, box: (any AnySettingBox)?
  ) {
    let position = declared.add(key, named: name, isFlag: isFlag, isList: isList)
    precondition(position == firstBoxes.count, "the registry's boxes and keys went out of step")
    firstBoxes.append(box)
  }

  /// Adds boxes.
  /// - Returns: the keys (and old names) that became known, and whether a new secret key was added.
  mutating func add(_ new: [any AnySettingBox]) -> (keys: [String], addedSecret: Bool) {
    var added: [String] = []
    var addedSecret = false
    for box in new {
      let key = box.key
      let name = EnvironmentNames.unprefixedName(forKey: key)
      let isFirst = position(of: key, named: name) == nil
      if isFirst {
        declare(key, named: name, isFlag: box.isFlag, isList: box.isList, box: box)
        // A struct's fields are learnt here, once per declaration, so that `APP_HTTP_TLS_ENABLED` and
        // `--http.tls.enabled` name one of them without encoding the default at each load.
        if let shape = box.fieldShape {
          declared.addFields(shape.settableFields(below: key, maxDepth: DeclaredKeys.maxFieldDepth), of: key)
        }
        added.append(key)
      } else {
        moreBoxes[key, default: []].append(box)
      }
      // Old names (aliases) are known keys too, so that their environment variables still work.
      for alias in box.aliases {
        boxesByAlias[alias, default: []].append(box)
        guard !declared.contains(alias) else { continue }
        declare(
          alias, named: EnvironmentNames.unprefixedName(forKey: alias), isFlag: false, isList: false, box: nil
        )
        added.append(alias)
      }
      if box.traits.contains(.secret) && secretKeys.insert(key).inserted { addedSecret = true }
    }
    return (added, addedSecret)
  }

  /// Removes boxes (a group was released or re-bound).
  /// - Returns: the keys no box declares any more.
  mutating func remove(_ old: [any AnySettingBox]) -> [String] {
    var removed: [String] = []
    var forgotten: [String] = []
    for box in old {
      let key = box.key
      for alias in box.aliases {
        boxesByAlias[alias]?.removeAll { $0 === box }
        if boxesByAlias[alias]?.isEmpty == true { boxesByAlias[alias] = nil }
      }
      if var more = moreBoxes[key], let index = more.firstIndex(where: { $0 === box }) {
        more.remove(at: index)
        moreBoxes[key] = more.isEmpty ? nil : more
        continue
      }
      guard let position = position(of: key), firstBoxes[position] === box else { continue }
      if var more = moreBoxes[key], !more.isEmpty {
        firstBoxes[position] = more.removeFirst()
        moreBoxes[key] = more.isEmpty ? nil : more
        continue
      }
      // No box declares the key now: it is forgotten, with the old names no other box reads.
      firstBoxes[position] = nil
      forgotten.append(key)
      forgotten += box.aliases.filter { boxesByAlias[$0] == nil && self.position(of: $0) == nil }
      secretKeys.remove(key)
      removed.append(key)
    }
    if let moved = declared.remove(forgotten) {
      firstBoxes = firstBoxes.indices.filter { moved[$0] != nil }.map { firstBoxes[$0] }
      precondition(firstBoxes.count == declared.keys.count, "the registry's boxes and keys went out of step")
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
