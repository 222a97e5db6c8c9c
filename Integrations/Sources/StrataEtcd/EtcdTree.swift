import Strata

/// Turns the keys read below a prefix into one tree: `/config/myapp/server/port` becomes
/// `server.port`, each value parsed by the source's format, every node's origin
/// `etcd:/config/myapp/server/port@rev N` (N: the revision that last changed the key).
///
/// The tree is kept, one ``EtcdKeyNode`` per path, and changed per key: a put or a delete parses that
/// key's value and re-renders only the paths from the key up to the root, so a change costs what it
/// touches (plus a copy of each table on its path that the store still holds), not the prefix's size.
/// A table's keys keep the order a whole read in key order gives them: a changed key's path moves by
/// binary search, nothing is sorted again.
///
/// It remembers each key's last parse (a key whose revision is unchanged is not parsed again) and its
/// last good value: a value that does not parse is reported with the key and left out, and the key's
/// last good value, if it had one, stays.
struct EtcdTree {
  /// Where a key goes: the prefix itself (no setting), left out with a warning, or a path of names.
  private enum Placement {
    case prefix
    case skipped(Diagnostic)
    case path(key: String, names: [String])
  }

  /// The prefix, as bytes.
  let prefix: [UInt8]
  /// How values are read.
  let format: EtcdValueFormat
  private var root: EtcdKeyNode
  /// The keys left out of the tree (not UTF-8, an empty name, too deep), with the warning of each.
  private var skipped: [[UInt8]: Diagnostic] = [:]
  /// The paths that have something to report (a key's parse, a value and table that met), by key.
  private var noted: [String: EtcdKeyNode] = [:]

  init(prefix: [UInt8], format: EtcdValueFormat) {
    self.prefix = prefix
    self.format = format
    root = EtcdKeyNode(name: "", key: String(decoding: prefix, as: UTF8.self))
    root.render(changed: nil, origin: rootOrigin, prefixLength: prefix.count)
  }

  /// The prefix as text, for messages.
  var label: String { root.key }

  private var rootOrigin: Origin { .remote(source: "etcd", key: label, revision: nil) }

  /// The tree, and what is wrong with its keys, in key order.
  var contents: (root: SettingValue, diagnostics: [Diagnostic]) {
    var found: [(key: [UInt8], rank: Int, diagnostic: Diagnostic)] = skipped.map { ($0.key, 0, $0.value) }
    for node in noted.values {
      found += node.notes.map { (Array(node.key.utf8), 0, $0) }
      found += node.conflicts.map { (Array($0.key.utf8), 1, $0.diagnostic) }
    }
    // Sorting is stable: a key's notes keep their order.
    found.sort { $0.key == $1.key ? $0.rank < $1.rank : $0.key.lexicographicallyPrecedes($1.key) }
    return (root.rendered!, found.map(\.diagnostic))
  }

  /// Replaces every key with `entries` (a whole range read) and returns the tree, with what was wrong.
  mutating func build(_ entries: [EtcdConnection.Entry], options: ParseOptions) -> (
    root: SettingValue, diagnostics: [Diagnostic]
  ) {
    replaceAll(entries, options: options)
    return contents
  }

  /// Replaces every key with `entries` (a whole range read). A key whose revision is unchanged is
  /// not parsed again; a key whose new value does not parse keeps its last good value.
  mutating func replaceAll(_ entries: [EtcdConnection.Entry], options: ParseOptions) {
    let old = root
    root = EtcdKeyNode(name: "", key: label)
    skipped = [:]
    noted = [:]
    let inOrder = zip(entries, entries.dropFirst()).allSatisfy { !$1.key.lexicographicallyPrecedes($0.key) }
    for entry in inOrder ? entries : entries.sorted(by: { $0.key.lexicographicallyPrecedes($1.key) }) {
      switch place(entry.key, maxDepth: options.maxDepth) {
      case .prefix: continue
      case .skipped(let warning): skipped[entry.key] = warning
      case .path(let key, let names):
        var node = root
        var known: EtcdKeyNode? = old
        for (depth, name) in names.enumerated() {
          known = known?.children[name]
          node = child(named: name, of: node, key: depth == names.count - 1 ? key : nil, ordered: true)
        }
        if let known, known.revision == entry.modRevision {
          node.revision = known.revision
          node.value = known.value
          node.notes = known.notes
        } else {
          node.value = known?.value
          parse(entry, into: node, options: options)
        }
      }
    }
    renderAll(root, isRoot: true)
  }

  /// Sets one key (a watch's put). Nothing happens when the key's revision is the one known.
  mutating func put(_ entry: EtcdConnection.Entry, options: ParseOptions) {
    switch place(entry.key, maxDepth: options.maxDepth) {
    case .prefix: return
    case .skipped(let warning): skipped[entry.key] = warning
    case .path(let key, let names):
      var path = [root]
      path.reserveCapacity(names.count + 1)
      for (depth, name) in names.enumerated() {
        let key = depth == names.count - 1 ? key : nil
        path.append(child(named: name, of: path[depth], key: key, ordered: false))
      }
      let leaf = path[names.count]
      guard leaf.revision == 0 || leaf.revision != entry.modRevision else { return }
      let before = path.map(\.firstKey)
      parse(entry, into: leaf, options: options)
      refresh(path, before: before)
    }
  }

  /// Removes one key (a watch's delete), with its last good value.
  mutating func delete(_ key: [UInt8]) {
    if skipped.removeValue(forKey: key) != nil { return }
    guard case .path(_, let names) = place(key, maxDepth: nil) else { return }
    var path = [root]
    for name in names {
      guard let next = path.last!.children[name] else { return }
      path.append(next)
    }
    let leaf = path[names.count]
    guard leaf.revision != 0 else { return }
    let before = path.map(\.firstKey)
    leaf.revision = 0
    leaf.value = nil
    leaf.notes = []
    refresh(path, before: before)
  }

  /// Where `bytes` go: the prefix itself, left out (with the warning), or a path of names. A key
  /// with an empty name (`app//port`, `app/port/`) would silently become `app.port`, and then hide or
  /// be hidden by the real `app/port`: it is left out, and said so.
  private func place(_ bytes: [UInt8], maxDepth: Int?) -> Placement {
    guard let key = String(validating: bytes, as: UTF8.self) else {
      return .skipped(
        Diagnostic(
          .warning,
          StrataError(.invalidUTF8, "a key below the prefix is not valid UTF-8; it is skipped", path: label)))
    }
    let rest = bytes[min(prefix.count, bytes.count)...]
    guard !rest.isEmpty else { return .prefix }  // the prefix itself names no setting
    let names = rest.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false)
    if names.contains(where: { $0.isEmpty }) {
      return .skipped(
        Diagnostic(
          .warning,
          StrataError(
            .unknownKey,
            "'\(key)' has an empty name between slashes (or a slash at its start or end); it is skipped",
            path: "etcd:" + key)))
    }
    if let maxDepth, names.count > maxDepth {
      return .skipped(
        Diagnostic(
          .warning,
          StrataError(
            .nestingTooDeep,
            "'\(key)' is \(names.count) names deep, more than ParseOptions.maxDepth (\(maxDepth)); "
              + "it is skipped",
            path: "etcd:" + key)))
    }
    return .path(key: key, names: names.map { String(decoding: $0, as: UTF8.self) })
  }

  /// The child `name` of `parent`, made when there is none (last in the parent's order when
  /// `ordered`: a whole read, in key order, sorts it out after); `key` is its key when known.
  private func child(named name: String, of parent: EtcdKeyNode, key: String?, ordered: Bool) -> EtcdKeyNode {
    if let existing = parent.children[name] { return existing }
    let made = EtcdKeyNode(name: name, key: key ?? (parent === root ? label + name : parent.key + "/" + name))
    parent.children[name] = made
    if ordered { parent.order.append(made) }
    return made
  }

  /// Parses `entry`'s value into `node` (which holds the key's last good value, if any).
  private func parse(_ entry: EtcdConnection.Entry, into node: EtcdKeyNode, options: ParseOptions) {
    node.revision = entry.modRevision
    let origin = Origin.remote(source: "etcd", key: node.key, revision: entry.modRevision)
    if case .string = format.kind, let text = String(validating: entry.value, as: UTF8.self) {
      node.value = SettingValue(.string(text), origin: origin)  // what the format makes, relabelled
      node.notes = []
      return
    }
    do throws(StrataError) {
      let (value, warnings) = try format.parse(entry.value, path: "etcd:" + node.key, options: options)
      node.value = Self.relabel(value, origin)
      node.notes = warnings
    } catch {
      var reported = error
      reported.message +=
        " (the value at revision \(entry.modRevision); "
        + (node.value == nil ? "it is left out)" : "the last good value is kept)")
      node.notes = [Diagnostic(.error, reported)]
    }
  }

  /// Re-renders `path` (root first) from its last node up, after that node's key changed; `before`
  /// holds each node's ``EtcdKeyNode/firstKey`` before the change. A node whose first key changed
  /// moves in its parent's order; one left with nothing is dropped.
  private mutating func refresh(_ path: [EtcdKeyNode], before: [String?]) {
    var unmoved: EtcdKeyNode?  // the child just rendered, when it kept its place in its parent's order
    for depth in stride(from: path.count - 1, to: 0, by: -1) {
      let node = path[depth]
      let parent = path[depth - 1]
      node.render(changed: unmoved, origin: nil, prefixLength: prefix.count)
      note(node)
      let (old, new) = (before[depth], node.firstKey)
      unmoved = nil
      if let old, let new, old.utf8.elementsEqual(new.utf8) {
        unmoved = node
      } else {
        if old != nil, let position = parent.order.firstIndex(where: { $0 === node }) {
          parent.order.remove(at: position)
        }
        if let new {
          let position = Self.insertionPoint(of: new, in: parent.order)
          parent.order.insert(node, at: position)
        }
      }
      if node.isUnused { parent.children[node.name] = nil }
    }
    root.render(changed: unmoved, origin: rootOrigin, prefixLength: prefix.count)
  }

  /// Renders `node` and everything below it (after a whole read), putting each order in
  /// ``EtcdKeyNode/firstKey`` order (sorting it only when the read's order did not give it).
  private mutating func renderAll(_ node: EtcdKeyNode, isRoot: Bool) {
    var kept: [EtcdKeyNode] = []
    var keys: [String] = []
    kept.reserveCapacity(node.order.count)
    keys.reserveCapacity(node.order.count)
    for child in node.order {
      renderAll(child, isRoot: false)
      if let key = child.firstKey {
        kept.append(child)
        keys.append(key)
      }
    }
    if !zip(keys, keys.dropFirst()).allSatisfy({ Self.precedes($0, $1) }) {
      kept.sort { Self.precedes($0.firstKey!, $1.firstKey!) }
    }
    node.order = kept
    node.render(changed: nil, origin: isRoot ? rootOrigin : nil, prefixLength: prefix.count)
    note(node)
  }

  /// Records whether `node` has something to report.
  private mutating func note(_ node: EtcdKeyNode) {
    noted[node.key] = node.notes.isEmpty && node.conflicts.isEmpty ? nil : node
  }

  /// Where a child whose first key is `key` goes in `order` (sorted by first key).
  private static func insertionPoint(of key: String, in order: [EtcdKeyNode]) -> Int {
    var (low, high) = (0, order.count)
    while low < high {
      let middle = (low + high) / 2
      if precedes(order[middle].firstKey!, key) { low = middle + 1 } else { high = middle }
    }
    return low
  }

  /// Whether `a` comes before `b` in byte order (etcd's key order).
  private static func precedes(_ a: String, _ b: String) -> Bool {
    a.utf8.lexicographicallyPrecedes(b.utf8)
  }

  /// `value` with every node's origin set to `origin`.
  private static func relabel(_ value: SettingValue, _ origin: Origin) -> SettingValue {
    switch value.kind {
    case .table(let table):
      SettingValue(.table(SettingTable(table.map { ($0.key, relabel($0.value, origin)) })), origin: origin)
    case .array(let elements):
      SettingValue(.array(elements.map { relabel($0, origin) }), origin: origin)
    default:
      SettingValue(value.kind, origin: origin)
    }
  }
}
