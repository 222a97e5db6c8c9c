/// The tables of a TOML document while it is read, with what TOML's redefinition rules need to know
/// about each: how it was defined, and where.
///
/// Tables live in one array and refer to each other by index. A table is always made after the table
/// that holds it, so ``build()`` finishes them from the last to the first without recursion.
///
/// The rules (TOML 1.0, as Python's `tomllib` applies them):
/// - a `[header]` defines its table once; a table made by dotted keys, an inline table and a value
///   cannot be opened by a header;
/// - dotted keys may add to a table they made in the same section, or to one a header made implicitly
///   (`a` of `[a.b]`), never to one a header defined or one an earlier section's dotted keys made;
/// - inline tables and arrays written as values are complete: nothing is added to them later;
/// - a key is set once.
struct TOMLTree {
  /// How a table came to be.
  enum Definition: Equatable {
    /// Named on the way to another table (`a` of `[a.b]`); a header may still define it.
    case implicit
    /// Defined by a `[header]` or as an element of an `[[array]]`.
    case header
    /// Made by a dotted key in the section numbered here.
    case dotted(section: Int)
  }

  /// What a key of a table holds.
  enum Slot {
    /// A value written after `=`: a scalar, an array or an inline table (complete as written).
    case value(SettingValue)
    /// A table of this tree (its index).
    case table(Int)
    /// An array of tables made by `[[headers]]` (the indices of its elements), and where it was started.
    case tables([Int], Origin)
  }

  struct Table {
    var keys: [String] = []
    var slots: [String: Slot] = [:]
    var lines: [String: Int] = [:]
    var definition: Definition
    var origin: Origin
    /// How many tables hold this one, the root being 0.
    var depth: Int
  }

  private(set) var tables: [Table]
  let path: String
  let maxDepth: Int
  /// The keys, arrays and tables made so far.
  private(set) var valueCount = 0
  let maxValues: Int

  init(path: String, origin: Origin, maxDepth: Int, maxValues: Int) {
    self.path = path
    self.maxDepth = maxDepth
    self.maxValues = maxValues
    tables = [Table(definition: .header, origin: origin, depth: 0)]
  }

  /// The key written at a table's position, for messages (`a."b.c"`).
  static func written(_ keys: some Collection<String>) -> String {
    keys.map { TOMLSerializer.key($0) }.joined(separator: ".")
  }

  /// Opens `[keys]`: the table it names, which is made or defined now.
  /// - Returns: the table's index.
  mutating func openTable(_ keys: [String], at origin: Origin) throws(StrataError) -> Int {
    let parent = try walkHeader(keys.dropLast(), at: origin)
    let name = keys[keys.count - 1]
    let header = "[" + Self.written(keys) + "]"
    switch tables[parent].slots[name] {
    case nil:
      return try addTable(named: name, in: parent, definition: .header, at: origin)
    case .table(let index):
      switch tables[index].definition {
      case .implicit:
        tables[index].definition = .header
        tables[index].origin = origin
        return index
      case .header:
        throw error(
          "the table \(header) is defined twice (first at line \(line(of: tables[index].origin))); "
            + "merge the two sections into one", at: origin)
      case .dotted:
        throw error(
          "the table \(header) was already made by dotted keys (at line \(line(of: tables[index].origin))); "
            + "a header cannot open it again: move its keys under one [header] or keep them dotted",
          at: origin)
      }
    case .tables(_, let first):
      throw error(
        "\(header) names an array of tables (started at line \(line(of: first))); write [\(header)] to add "
          + "an element", at: origin)
    case .value(let value):
      throw error(
        "\(header) names a key already set to \(Self.describe(value)) at line \(line(of: value.origin)); "
          + "rename the table or the key", at: origin)
    }
  }

  /// Opens `[[keys]]`: a new table appended to the array of tables it names.
  /// - Returns: the new element's index.
  mutating func appendTable(_ keys: [String], at origin: Origin) throws(StrataError) -> Int {
    let parent = try walkHeader(keys.dropLast(), at: origin)
    let name = keys[keys.count - 1]
    let header = "[[" + Self.written(keys) + "]]"
    switch tables[parent].slots[name] {
    case nil:
      let index = try newTable(in: parent, definition: .header, at: origin)
      insert(name, .tables([index], origin), in: parent, at: origin)
      return index
    case .tables(let elements, let first):
      let index = try newTable(in: parent, definition: .header, at: origin)
      tables[parent].slots[name] = .tables(elements + [index], first)
      return index
    case .table(let index):
      throw error(
        "\(header) names a table (made at line \(line(of: tables[index].origin))), not an array of tables; "
          + "rename one of them", at: origin)
    case .value(let value):
      throw error(
        "\(header) names a key already set to \(Self.describe(value)) at line \(line(of: value.origin)); "
          + "an array written as a value cannot be extended by [[headers]]", at: origin)
    }
  }

  /// Sets `keys = value` in the table `table`, making the tables of a dotted key.
  /// - Parameter section: the number of the current section (dotted keys may add to tables they made
  ///   in the same one).
  mutating func set(
    _ keys: [String], to value: SettingValue, in table: Int, section: Int, at origin: Origin
  ) throws(StrataError) {
    var current = table
    for (position, name) in keys.dropLast().enumerated() {
      switch tables[current].slots[name] {
      case nil:
        current = try addTable(named: name, in: current, definition: .dotted(section: section), at: origin)
      case .table(let index):
        switch tables[index].definition {
        case .implicit:
          tables[index].definition = .dotted(section: section)
        case .dotted(let made) where made == section:
          break
        case .dotted, .header:
          throw error(
            "the dotted key \(Self.written(keys)) adds to the table \(Self.written(keys.prefix(position + 1))), "
              + "which is complete (defined at line \(line(of: tables[index].origin))); set the key in that "
              + "table's own section", at: origin)
        }
        current = index
      case .tables(_, let first):
        throw error(
          "the dotted key \(Self.written(keys)) goes through \(Self.written(keys.prefix(position + 1))), an "
            + "array of tables (started at line \(line(of: first))); set the key under its [[header]]",
          at: origin)
      case .value(let existing):
        throw error(
          "the dotted key \(Self.written(keys)) goes through \(Self.written(keys.prefix(position + 1))), "
            + "which is \(Self.describe(existing)) set at line \(line(of: existing.origin)); "
            + (existing.isTable
              ? "an inline table is complete as written: add the key inside its braces"
              : "rename one of the keys"),
          at: origin)
      }
    }
    let name = keys[keys.count - 1]
    if let slot = tables[current].slots[name] {
      let first: Int
      switch slot {
      case .value(let existing): first = line(of: existing.origin)
      case .table(let index): first = line(of: tables[index].origin)
      case .tables(_, let started): first = line(of: started)
      }
      throw StrataError(
        .duplicateKey,
        "the key \(Self.written(keys)) is set twice (first at line \(first)); remove one of them",
        path: path, line: line(of: origin), column: column(of: origin))
    }
    try count(1, at: origin)
    insert(name, .value(value), in: current, at: origin)
  }

  /// The finished tree, its root a table.
  func build() -> SettingValue {
    var built = [SettingValue?](repeating: nil, count: tables.count)
    for index in tables.indices.reversed() {
      let table = tables[index]
      var builder = TableBuilder(capacity: table.keys.count)
      for key in table.keys {
        let value: SettingValue
        switch table.slots[key]! {
        case .value(let scalar): value = scalar
        case .table(let child): value = built[child].take()!
        case .tables(let children, let origin):
          value = SettingValue(.array(children.map { built[$0].take()! }), origin: origin)
        }
        builder.set(key, value, hash: KeyHash.of(key))
      }
      built[index] = SettingValue(.table(builder.build()), origin: table.origin)
    }
    return built[0]!
  }

  /// Follows the keys of a header before its last, making implicit tables; an array of tables stands
  /// for its last element.
  private mutating func walkHeader(_ keys: ArraySlice<String>, at origin: Origin) throws(StrataError) -> Int {
    var current = 0
    for (position, name) in keys.enumerated() {
      switch tables[current].slots[name] {
      case nil:
        current = try addTable(named: name, in: current, definition: .implicit, at: origin)
      case .table(let index):
        current = index
      case .tables(let elements, _):
        current = elements[elements.count - 1]
      case .value(let value):
        let prefix = Self.written(keys.prefix(position + 1))
        throw error(
          "the header goes through \(prefix), which is \(Self.describe(value)) set at line "
            + "\(line(of: value.origin)); "
            + (value.isTable
              ? "an inline table is complete as written: add the keys inside its braces"
              : "rename the table or the key"),
          at: origin)
      }
    }
    return current
  }

  private mutating func addTable(
    named name: String, in parent: Int, definition: Definition, at origin: Origin
  ) throws(StrataError) -> Int {
    let index = try newTable(in: parent, definition: definition, at: origin)
    insert(name, .table(index), in: parent, at: origin)
    return index
  }

  private mutating func newTable(in parent: Int, definition: Definition, at origin: Origin)
    throws(StrataError)
    -> Int
  {
    let depth = tables[parent].depth + 1
    if depth > maxDepth {
      throw StrataError(
        .nestingTooDeep,
        "tables are nested more than \(maxDepth) deep (the limit ParseOptions.maxDepth); use fewer dotted keys",
        path: path, line: line(of: origin), column: column(of: origin))
    }
    try count(1, at: origin)
    tables.append(Table(definition: definition, origin: origin, depth: depth))
    return tables.count - 1
  }

  private mutating func insert(_ name: String, _ slot: Slot, in table: Int, at origin: Origin) {
    tables[table].keys.append(name)
    tables[table].slots[name] = slot
  }

  /// Counts values against `maxValues`.
  mutating func count(_ added: Int, at origin: Origin) throws(StrataError) {
    valueCount += added
    if valueCount > maxValues {
      throw StrataError(
        .tooManyValues,
        "the file holds more than \(maxValues) values (the limit ParseOptions.maxValues); split it or raise "
          + "the limit", path: path, line: line(of: origin), column: column(of: origin))
    }
  }

  /// The depth of a table.
  func depth(of table: Int) -> Int { tables[table].depth }

  static func describe(_ value: SettingValue) -> String {
    switch value.kind {
    case .table: "an inline table"
    case .array: "an array"
    default: "a \(value.typeName)"
    }
  }

  private func error(_ message: String, at origin: Origin) -> StrataError {
    StrataError(.syntax, message, path: path, line: line(of: origin), column: column(of: origin))
  }

  private func line(of origin: Origin) -> Int {
    if case .file(_, let line, _) = origin { return line }
    return 0
  }

  private func column(of origin: Origin) -> Int {
    if case .file(_, _, let column) = origin { return column }
    return 0
  }
}

extension Optional {
  /// The value, leaving `nil` behind.
  fileprivate mutating func take() -> Wrapped? {
    defer { self = nil }
    return self
  }
}
