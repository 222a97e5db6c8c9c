/// A tree of values set key by key (the environment's variables, the command line's options), built
/// into a ``SettingValue`` once at the end.
///
/// Setting a key into a finished tree copies every table on its way (a table taken out of its parent is
/// shared until it is put back), so that setting n keys one by one costs n² in the widest table; here a
/// key costs a dictionary look-up per name. Building walks the nodes in reverse order of creation (a
/// child is always made after its parent) instead of recursing, so that no key, however deep, drives the
/// stack.
struct KeyTreeBuilder {
  private struct Node {
    /// The value of a leaf; `nil` for a table.
    var value: SettingValue?
    /// The table's children, in the order their names were first set.
    var children: [(name: String, node: Int)] = []
    /// Name → position in `children`.
    var positions: [String: Int] = [:]
    /// The origin of a table: the first value set through it, as setting into a tree gives it.
    var origin: Origin

    init(value: SettingValue? = nil, origin: Origin) {
      self.value = value
      self.origin = origin
    }

    /// Makes the node an empty table.
    mutating func clear(origin: Origin) {
      value = nil
      children = []
      positions = [:]
      self.origin = origin
    }
  }

  private var nodes: [Node]

  /// An empty tree whose root table has `origin`, with room for `capacity` keys.
  init(origin: Origin, capacity: Int = 0) {
    nodes = [Node(origin: origin)]
    nodes.reserveCapacity(capacity + 1)
  }

  /// Sets `value` at a path of names below the root, creating tables on the way; a value in the way
  /// becomes a table, and a table at the end is replaced. A key set again keeps its first position.
  mutating func set(_ value: SettingValue, atNames names: [String]) {
    guard !names.isEmpty else { return }
    var current = 0
    for name in names {
      if nodes[current].value != nil { nodes[current].clear(origin: value.origin) }
      if let position = nodes[current].positions[name] {
        current = nodes[current].children[position].node
      } else {
        let child = nodes.count
        nodes.append(Node(origin: value.origin))
        nodes[current].positions[name] = nodes[current].children.count
        nodes[current].children.append((name, child))
        current = child
      }
    }
    nodes[current].clear(origin: value.origin)
    nodes[current].value = value
  }

  /// The finished tree (a table at the top).
  func build() -> SettingValue {
    var built = [SettingValue?](repeating: nil, count: nodes.count)
    for index in nodes.indices.reversed() {
      let node = nodes[index]
      if let value = node.value {
        built[index] = value
        continue
      }
      var entries: [SettingTable.Entry] = []
      entries.reserveCapacity(node.children.count)
      for (name, child) in node.children {
        guard let value = built[child] else { continue }
        built[child] = nil
        entries.append(SettingTable.Entry(key: name, value: value))
      }
      built[index] = SettingValue(.table(SettingTable(distinctEntries: entries)), origin: node.origin)
    }
    return built[0]!
  }
}
