/// A table of named ``SettingValue`` nodes that keeps the order in which keys were first set.
///
/// Setting an existing key replaces its value in place (last wins, first position kept), which is how
/// every format treats a duplicate key.
public struct SettingTable: Sendable, Equatable, Sequence {
  /// One key and its value. A struct rather than a tuple: the compiler specializes copying and
  /// destroying it, where an array of tuples goes through the runtime's generic tuple witnesses.
  struct Entry: Sendable {
    var key: String
    var value: SettingValue
  }

  /// The entries, in order.
  private(set) var storage: [Entry] = []
  /// Key → position, built only once the table grows past ``linearLimit``: most tables hold a few dozen
  /// keys or fewer, where comparing short strings beats hashing every key (and growing a dictionary).
  private var indexBox: IndexBox? = nil
  /// Boxed, so that a table is two words and a `SettingValue` fits in one cache line (64 bytes); tables
  /// past ``linearLimit`` are few, and a lookup in one pays the extra load.
  private var index: KeyIndex? {
    get { indexBox?.index }
    set { indexBox = newValue.map(IndexBox.init) }
  }

  /// A table's index, shared by copies of the table; a change makes a new box.
  private final class IndexBox: Sendable {
    let index: KeyIndex
    init(_ index: KeyIndex) { self.index = index }
  }
  static let linearLimit = 32

  /// An empty table.
  public init() {}

  /// A table of the given entries; a repeated key keeps its first position and its last value.
  public init(_ entries: [(String, SettingValue)]) {
    guard entries.count > Self.linearLimit else {
      self.init(distinctEntries: [])
      storage.reserveCapacity(entries.count)
      for (key, value) in entries { self[key] = value }
      return
    }
    // One index, grown in place (the subscript makes a new box for each key it adds).
    var built: [Entry] = []
    built.reserveCapacity(entries.count)
    var index = KeyIndex(capacity: entries.count)
    for (key, value) in entries {
      let hash = KeyHash.of(key)
      if let position = index.position(of: key, hash: hash, keyAt: { built[$0].key }) {
        built[position].value = value
      } else {
        index.insert(key, hash: hash, at: built.count, earlier: built.lazy.map(\.key))
        built.append(Entry(key: key, value: value))
      }
    }
    self.init(distinctEntries: built, index: index)
  }

  /// A table of entries whose keys are known to be distinct (a parser's finished table).
  init(distinctEntries: [Entry]) {
    storage = distinctEntries
    if storage.count > Self.linearLimit { buildIndex() }
  }

  /// A table of distinct entries with their index (key → position) when a builder has made one.
  init(distinctEntries: [Entry], index: KeyIndex?) {
    storage = distinctEntries
    if let index, index.count == storage.count {
      self.index = index
    } else if storage.count > Self.linearLimit {
      buildIndex()
    }
  }

  /// The entries, in order.
  var entries: [(key: String, value: SettingValue)] { storage.map { ($0.key, $0.value) } }
  /// The number of keys.
  public var count: Int { storage.count }
  /// Whether the table has no keys.
  public var isEmpty: Bool { storage.isEmpty }
  /// The keys, in order.
  var keys: [String] { storage.map(\.key) }

  /// Whether both tables are copies of one table (the same entries buffer): then they are identical,
  /// and a comparison need not look inside.
  func sharesStorage(with other: SettingTable) -> Bool {
    storage.count == other.storage.count
      && storage.withUnsafeBufferPointer { mine in
        other.storage.withUnsafeBufferPointer { theirs in mine.baseAddress == theirs.baseAddress }
      }
  }

  /// The position of a key in the table's order, or `nil`.
  func position(ofKey key: String) -> Int? {
    if let indexBox { return indexBox.index.position(of: key, hash: KeyHash.of(key)) { storage[$0].key } }
    return storage.firstIndex { $0.key == key }
  }

  /// The value for a key; setting `nil` removes the key.
  public subscript(key: String) -> SettingValue? {
    get { position(ofKey: key).map { storage[$0].value } }
    set {
      if let newValue {
        if let position = position(ofKey: key) {
          storage[position].value = newValue
        } else {
          if var index = indexBox?.index {
            // The box is immutable (read without an exclusivity check); dropping it before the insert
            // leaves the index's arrays unshared when no copy of the table holds them.
            indexBox = nil
            index.insert(key, hash: KeyHash.of(key), at: storage.count, earlier: storage.lazy.map(\.key))
            indexBox = IndexBox(index)
          }
          storage.append(Entry(key: key, value: newValue))
          if indexBox == nil && storage.count > Self.linearLimit { buildIndex() }
        }
      } else if let position = position(ofKey: key) {
        storage.remove(at: position)
        if indexBox != nil { buildIndex() }
      }
    }
  }

  /// Replaces the value at a position of the table's order, keeping its key.
  mutating func replaceValue(atPosition position: Int, with value: SettingValue) {
    storage[position].value = value
  }

  private mutating func buildIndex() {
    index = KeyIndex(storage.lazy.map(\.key))
  }

  /// Whether the table has the key.
  func contains(_ key: String) -> Bool { position(ofKey: key) != nil }

  /// Iterates the entries in order, as `(key, value)` pairs.
  public func makeIterator() -> some IteratorProtocol<(key: String, value: SettingValue)> {
    storage.lazy.map { (key: $0.key, value: $0.value) }.makeIterator()
  }

  /// Compares keys, order and content (not origins).
  public static func == (lhs: SettingTable, rhs: SettingTable) -> Bool {
    lhs.storage.count == rhs.storage.count
      && zip(lhs.storage, rhs.storage).allSatisfy { $0.key == $1.key && $0.value == $1.value }
  }
}
