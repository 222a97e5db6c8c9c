/// What a new snapshot changes, found from the sources that changed rather than from every key.
extension Snapshot {
  /// What changed since `previous`.
  struct Changes {
    /// The keys a setting could resolve differently: every leaf whose value, origin, scope, secrecy or
    /// shadowed values differ, every leaf only one snapshot has, and every table above those (a setting
    /// may read a whole table).
    var affected: Set<String> = []
    /// Leaves whose value (content, not origin) changed or appeared.
    var changedValues: [String] = []
    /// Leaves that `previous` had and this snapshot does not.
    var removed: [String] = []
    /// Whether the documents differ at all (in a leaf, or in a table's origin), even where the merged
    /// result does not.
    var sourcesDiffer = false
    /// Whether anything may have changed: the first snapshot after the empty one, which nothing was
    /// compared with, or the first with a key after snapshots without one (``affected`` is empty then).
    var everything = false
    /// The origin of each of ``changedValues``' new values, in the same order, when a walk of the new
    /// tree found them all (every key is new): no key need be looked up again.
    var changedOrigins: [Origin]?

    /// Adds a key and the tables above it to ``affected``.
    mutating func affect(_ key: String) {
      guard affected.insert(key).inserted else { return }
      var names = SettingKey.names(in: key)
      while names.count > 1 {
        names.removeLast()
        // An ancestor already present brought its own ancestors with it.
        if !affected.insert(SettingKey.join(names)).inserted { break }
      }
    }
  }

  /// What changed since `previous` (see ``Changes``).
  ///
  /// When both snapshots merge the same documents (the same scopes and paths, in order: a reload of
  /// files that were there already), only the documents that differ are compared, subtree by subtree
  /// (a table shared by both is skipped without a look inside), and only the keys where they differ are
  /// looked up in both snapshots: a one-key edit costs one document walk and one lookup, not a visit of
  /// every key. Otherwise (a document appeared or went away), every key of both is compared.
  func changes(since previous: Snapshot) -> Changes {
    if previous.generation == 0 {
      return Changes(sourcesDiffer: !sources.isEmpty, everything: true)
    }
    if previous.root.table?.isEmpty == true, root.table?.isEmpty == false {
      // Every key is new (the first read of a remote source, over layers without a key): each leaf
      // of the merged tree, found by one walk, without indexing either snapshot.
      var changes = Changes(sourcesDiffer: true, everything: true, changedOrigins: [])
      root.forEachLeaf { key, value in
        changes.changedValues.append(key)
        changes.changedOrigins?.append(value.origin)
      }
      return changes
    }
    guard let walk = differences(since: previous) else { return changesByWalkingEveryKey(since: previous) }
    var changes = Changes(sourcesDiffer: walk.differ)
    for (key, names) in walk.found {
      let new = lookUpEntry(key: key, names: names)
      let old = previous.lookUpEntry(key: key, names: names)
      switch (old, new) {
      case (nil, nil): continue
      case (_?, nil):
        changes.affect(key)
        changes.removed.append(key)
      case (let old, let new?):
        if let old, new.isIdentical(to: old) { continue }
        changes.affect(key)
        if old?.value != new.value { changes.changedValues.append(key) }
      }
    }
    return changes
  }

  /// The leaf keys that differ between some document of this snapshot and the document at the same
  /// place in `previous`, in document order; `nil` when the documents do not line up.
  private func differences(since previous: Snapshot) -> LeafDifferences? {
    guard sources.count == previous.sources.count else { return nil }
    var walk = LeafDifferences(roots: (sources + previous.sources).map(\.document.root))
    for (new, old) in zip(sources, previous.sources) {
      guard new.scope == old.scope, new.document.path == old.document.path else { return nil }
      if new.document.isSecret != old.document.isSecret {
        walk.addLeaves(of: old.document.root)
        walk.addLeaves(of: new.document.root)
      } else {
        walk.compare(old.document.root, new.document.root)
      }
    }
    return walk
  }

  /// The old way, kept for stacks whose documents changed in number or place: a lookup of every key of
  /// both snapshots.
  func changesByWalkingEveryKey(since previous: Snapshot) -> Changes {
    var changes = Changes(sourcesDiffer: true)
    let mine = entriesByKey
    let theirs = previous.entriesByKey
    for key in keys {
      guard let new = mine[key] else { continue }
      let old = theirs[key]
      if let old, new.isIdentical(to: old) { continue }
      changes.affect(key)
      if old?.value != new.value { changes.changedValues.append(key) }
    }
    for key in previous.keys where mine[key] == nil {
      changes.affect(key)
      changes.removed.append(key)
    }
    return changes
  }
}

/// A walk of two trees that collects the leaf keys where they differ (in value or origin, or where one
/// has a leaf the other does not), skipping subtrees the two share.
///
/// Where a node appears, goes away, or turns from a table into a value or back, the merged result at
/// that path may change in the other documents' leaves too (a value in a middle layer hides the tables
/// below it), so the leaves every document has there are collected as well.
struct LeafDifferences {
  /// The roots of every document of both snapshots.
  let roots: [SettingValue]

  init(roots: [SettingValue]) { self.roots = roots }
  private(set) var found: [(key: String, names: [String])] = []
  /// Whether anything differs: a leaf, or the origin of a table.
  var differ: Bool { !found.isEmpty || tableOriginsDiffer }
  private var tableOriginsDiffer = false
  private var seen: Set<String> = []
  /// The names of the node being visited.
  private var path: [String] = []

  /// Collects the differences between `old` and `new` (the nodes at ``path``).
  mutating func compare(_ old: SettingValue, _ new: SettingValue) {
    switch (old.table, new.table) {
    case (let a?, let b?):
      if a.sharesStorage(with: b) { return }
      if old.origin != new.origin { tableOriginsDiffer = true }
      if a.count == b.count && zip(a.storage, b.storage).allSatisfy({ $0.key == $1.key }) {
        // The same keys in the same order (an edit of values): compare side by side.
        for (x, y) in zip(a.storage, b.storage) {
          path.append(x.key)
          compare(x.value, y.value)
          path.removeLast()
        }
        return
      }
      for entry in b.storage {
        path.append(entry.key)
        if let before = a[entry.key] { compare(before, entry.value) } else { addLeavesEverywhere() }
        path.removeLast()
      }
      for entry in a.storage where b[entry.key] == nil {
        path.append(entry.key)
        addLeavesEverywhere()
        path.removeLast()
      }
    case (nil, nil):
      if !old.isIdentical(to: new) { add() }
    default:
      addLeavesEverywhere()
    }
  }

  /// Adds every leaf of `node` (the node at ``path``).
  mutating func addLeaves(of node: SettingValue) {
    guard let table = node.table else {
      add()
      return
    }
    for entry in table.storage {
      path.append(entry.key)
      addLeaves(of: entry.value)
      path.removeLast()
    }
  }

  /// Adds every leaf any document has at or below ``path``.
  private mutating func addLeavesEverywhere() {
    let names = path
    for root in roots {
      if let node = root.value(atComponents: names) { addLeaves(of: node) }
    }
  }

  private mutating func add() {
    let key = SettingKey.join(path)
    if seen.insert(key).inserted { found.append((key, path)) }
  }
}
