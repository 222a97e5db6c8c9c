/// A table of named ``SettingValue`` nodes that keeps the order in which keys were first set.
///
/// Setting an existing key replaces its value in place (last wins, first position kept), which is how
/// every format treats a duplicate key.
public struct SettingTable: Sendable, Equatable, Sequence {
  /// The entries, in order.
  public private(set) var entries: [(key: String, value: SettingValue)] = []
  private var index: [String: Int] = [:]

  /// An empty table.
  public init() {}

  /// A table of the given entries; a repeated key keeps its first position and its last value.
  public init(_ entries: [(String, SettingValue)]) {
    for (key, value) in entries { self[key] = value }
  }

  /// The number of keys.
  public var count: Int { entries.count }
  /// Whether the table has no keys.
  public var isEmpty: Bool { entries.isEmpty }
  /// The keys, in order.
  public var keys: [String] { entries.map(\.key) }

  /// The value for a key; setting `nil` removes the key.
  public subscript(key: String) -> SettingValue? {
    get { index[key].map { entries[$0].value } }
    set {
      if let newValue {
        if let position = index[key] {
          entries[position].value = newValue
        } else {
          index[key] = entries.count
          entries.append((key, newValue))
        }
      } else if let position = index.removeValue(forKey: key) {
        entries.remove(at: position)
        for i in position..<entries.count { index[entries[i].key] = i }
      }
    }
  }

  /// Whether the table has the key.
  public func contains(_ key: String) -> Bool { index[key] != nil }

  /// Iterates the entries in order.
  public func makeIterator() -> IndexingIterator<[(key: String, value: SettingValue)]> {
    entries.makeIterator()
  }

  /// Compares keys, order and content (not origins).
  public static func == (lhs: SettingTable, rhs: SettingTable) -> Bool {
    lhs.entries.count == rhs.entries.count
      && zip(lhs.entries, rhs.entries).allSatisfy { $0.key == $1.key && $0.value == $1.value }
  }
}
