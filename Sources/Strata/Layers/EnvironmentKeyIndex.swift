/// Which keys of a document an environment variable can mean, found by walking from the variable's
/// name down the tables its words name.
///
/// A variable name (`SERVER_MAX_CONNECTIONS`, after the prefix) is matched against a tree one table at
/// a time: at each table, every way of cutting the name at an `_` is looked up among the generated
/// names of the table's children (`maxConnections` → `MAX_CONNECTIONS`). The generated names of a
/// table's children are computed the first time a variable walks through it and kept with the document,
/// so a load costs what the environment holds (its variables, times the depth of the keys they name),
/// not what the files hold, and a reload of one file computes names only for that file's tables.
final class EnvironmentKeyIndex: Sendable {
  /// For each table visited (by its key; the root is `""`), its children by generated name.
  private let tables = Locked([String: Children]())

  /// A table's children by generated name, and the longest of those names (in UTF-8 bytes): no longer
  /// leading part of a variable's name can match one, so a walk stops cutting there (a hostile name of
  /// 100,000 words then costs what its first words do).
  private struct Children {
    var byName: [String: [String]] = [:]
    var longest = 0
  }

  /// An empty index.
  init() {}

  /// How many tables have had their children's names computed.
  var indexedTableCount: Int { tables.withLock { $0.count } }

  /// The keys of `root`'s leaves (values that are not tables) whose generated name is `name`.
  func keys(named name: Substring, in root: SettingValue) -> [String] {
    var found: [String] = []
    var deepest: (key: String, consumed: Int)? = nil
    walk(root, at: "", name: name, consumed: 0, found: &found, deepest: &deepest)
    return found
  }

  /// Generated names (without the prefix) near `name`, for "did you mean": the children of the
  /// deepest table that `name`'s leading words lead to, each with those words in front.
  func nearbyNames(to name: Substring, in root: SettingValue) -> [String] {
    var found: [String] = []
    var deepest: (key: String, consumed: Int)? = nil
    walk(root, at: "", name: name, consumed: 0, found: &found, deepest: &deepest)
    guard let deepest, let table = root.value(atComponents: SettingKey.names(in: deepest.key))?.table else {
      return []
    }
    let lead = name.prefix(deepest.consumed)
    return children(of: table, at: deepest.key).byName.keys.map { lead + $0 }
  }

  private func walk(
    _ value: SettingValue, at key: String, name: Substring, consumed: Int, found: inout [String],
    deepest: inout (key: String, consumed: Int)?
  ) {
    guard let table = value.table else { return }
    if consumed >= deepest?.consumed ?? 0 { deepest = (key, consumed) }
    let children = children(of: table, at: key)
    // Names whose generated part is empty (`-`) add nothing to the variable's name.
    for child in children.byName[""] ?? [] {
      let childKey = SettingKey.appending(child, to: key)
      let childValue = table[child]!
      if name.isEmpty && !childValue.isTable {
        found.append(childKey)
      } else {
        walk(childValue, at: childKey, name: name, consumed: consumed, found: &found, deepest: &deepest)
      }
    }
    var cut = name.startIndex
    while cut < name.endIndex {
      cut = name[name.index(after: cut)...].firstIndex(of: "_") ?? name.endIndex
      if name.utf8.distance(from: name.startIndex, to: cut) > children.longest { break }
      guard let names = children.byName[String(name[..<cut])] else { continue }
      for child in names {
        let childKey = SettingKey.appending(child, to: key)
        let childValue = table[child]!
        let rest = cut == name.endIndex ? name[cut...] : name[name.index(after: cut)...]
        if rest.isEmpty && !childValue.isTable {
          found.append(childKey)
        } else {
          // A table at the end of the name may still hold a leaf whose own name adds nothing (`a.-`).
          walk(
            childValue, at: childKey, name: rest,
            consumed: consumed + name.distance(from: name.startIndex, to: cut) + 1,
            found: &found, deepest: &deepest)
        }
      }
    }
  }

  /// The children of the table at `key` by generated name, computed once.
  private func children(of table: SettingTable, at key: String) -> Children {
    if let known = tables.withLock({ $0[key] }) { return known }
    var children = Children()
    for child in table.keys {
      let name = EnvironmentNames.screamingSnake(child)
      children.byName[name, default: []].append(child)
      children.longest = max(children.longest, name.utf8.count)
    }
    tables.withLock { $0[key] = children }
    return children
  }
}
