import Strata

/// One path of the tree of keys below an etcd prefix (`server`, `server/port`): the key at that path,
/// if there is one, with its last parse; the paths below it; and the value the store sees there, kept
/// current as keys change, so that a change re-renders only the paths from its key up to the root.
///
/// Owned by one ``EtcdTree`` (never shared between threads: the source state's lock guards it).
final class EtcdKeyNode {
  /// The name below the parent (`port`); empty for the root.
  let name: String
  /// The key at this path (`/config/myapp/server/port`), also the key its values' origins name.
  let key: String
  /// The mod revision of the key at this path (0: no key here).
  var revision = 0
  /// The key's value: its last parse, or its last good value when that parse failed (`nil`: none).
  var value: SettingValue?
  /// What the key's last parse reported: its warnings, or its error.
  var notes: [Diagnostic] = []
  /// The paths below, by name.
  var children: [String: EtcdKeyNode] = [:]
  /// The children that hold a value at or below them, in the order of their ``firstKey``s: the order a
  /// table's keys take when the keys are read in key order.
  var order: [EtcdKeyNode] = []
  /// What the store sees at this path (`nil`: no value at or below it).
  private(set) var rendered: SettingValue?
  /// The warnings of a value and a table of keys that met at this path, each with the key it names.
  private(set) var conflicts: [(key: String, diagnostic: Diagnostic)] = []

  init(name: String, key: String) {
    self.name = name
    self.key = key
  }

  /// The first key, in byte order, at or below this path that holds a value (`nil`: none).
  var firstKey: String? { value != nil ? key : order.first?.firstKey }

  /// The origin of the value at ``firstKey``: the origin a table made for the keys below takes.
  var firstOrigin: Origin? { value?.origin ?? order.first?.firstOrigin }

  /// Whether nothing is at or below this path: it can be dropped.
  var isUnused: Bool { revision == 0 && children.isEmpty }

  /// Renders this path from its value and its children's renderings. `changed`, when given, is the
  /// one child that changed since the last rendering, and held a value with the same ``firstKey``
  /// before and after: when this path has no value of its own, the child's rendering replaces the
  /// old one in place instead of the table being rebuilt.
  func render(changed: EtcdKeyNode?, origin fixedOrigin: Origin?, prefixLength: Int) {
    if let changed, value == nil, let childValue = changed.rendered, var table = rendered?.table {
      rendered = nil  // the table's storage is then this copy's alone (unless the store holds it)
      table[changed.name] = childValue
      rendered = SettingValue(.table(table), origin: fixedOrigin ?? order[0].firstOrigin!)
      return
    }
    conflicts = []
    guard let first = order.first else {
      rendered = fixedOrigin.map { SettingValue(.table(SettingTable()), origin: $0) } ?? value
      return
    }
    if let value, let own = value.table {
      // A value that is a table (a JSON object) takes the keys below as its own keys.
      var table = own
      for child in order
      where !Self.merge(child.rendered!, named: child.name, into: &table) {
        conflicts.append(conflict(at: child.firstKey!, prefixLength: prefixLength))
      }
      rendered = SettingValue(.table(table), origin: value.origin)
      return
    }
    // The names are distinct (one child each).
    let table = SettingTable(order.map { ($0.name, $0.rendered!) })
    if value != nil { conflicts.append(conflict(at: first.firstKey!, prefixLength: prefixLength)) }
    rendered = SettingValue(.table(table), origin: fixedOrigin ?? first.firstOrigin!)
  }

  /// The warning that a value and the table of keys below it met at this path, found when `key`
  /// came (the table is used).
  private func conflict(at key: String, prefixLength: Int) -> (key: String, diagnostic: Diagnostic) {
    let names = key.utf8.dropFirst(prefixLength).split(separator: UInt8(ascii: "/")).map {
      String(decoding: $0, as: UTF8.self)
    }
    let error = StrataError(
      .typeMismatch,
      "'\(SettingKey.join(names))' is both a value and a table of keys below it; the table is used",
      path: "etcd:" + key)
    return (key, Diagnostic(.warning, error))
  }

  /// Puts `value` at `name` in `table`, merging tables; `false` when a value and a table met at one
  /// path (the table is kept). Recurses as deep as the tables are (a parsed value's depth is bounded by
  /// ``Strata/ParseOptions/maxDepth``; a table of keys has one level per name).
  static func merge(_ value: SettingValue, named name: String, into table: inout SettingTable) -> Bool {
    guard let existing = table[name] else {
      table[name] = value
      return true
    }
    guard var merged = existing.table, let incoming = value.table else {
      if existing.table != nil { return false }
      table[name] = value
      return value.table == nil
    }
    var clean = true
    for (key, child) in incoming { clean = merge(child, named: key, into: &merged) && clean }
    table[name] = SettingValue(.table(merged), origin: existing.origin)
    return clean
  }
}
