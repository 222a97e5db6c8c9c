/// One component of a key or section path, with the position it was written at (for messages).
struct INIPathPart {
  var name: String
  var line: Int
  var column: Int
}

/// The mutable tree an INI parse builds before it becomes a ``SettingValue``.
///
/// A class tree rather than nested `SettingTable` values, because sections are re-entered many times
/// (`[a]`, `[a.b]`, `[a]` again, includes) and mutating a value tree in place would copy whole subtrees.
final class INITable {
  enum Node {
    case value(SettingValue)
    case array([SettingValue], origin: Origin)
    case table(INITable)

    var origin: Origin {
      switch self {
      case .value(let value): value.origin
      case .array(_, let origin): origin
      case .table(let table): table.origin
      }
    }
  }

  let origin: Origin
  private(set) var keys: [String] = []
  private(set) var nodes: [Node] = []
  /// Built only once a table grows past `linearLimit`: most sections have a few dozen keys, where a
  /// linear scan of short strings beats hashing each key (and growing a dictionary) several times.
  private var index: [String: Int]? = nil
  private static let linearLimit = 24

  init(origin: Origin) { self.origin = origin }

  /// The position of a key, or `nil`.
  func position(of key: String) -> Int? {
    if let index { return index[key] }
    return keys.firstIndex(of: key)
  }

  subscript(key: String) -> Node? {
    position(of: key).map { nodes[$0] }
  }

  /// Adds a key that is not in the table yet.
  func append(_ key: String, _ node: Node) {
    if index != nil {
      index![key] = nodes.count
    } else if keys.count == Self.linearLimit {
      var built = [String: Int](minimumCapacity: Self.linearLimit * 4)
      for (position, existing) in keys.enumerated() { built[existing] = position }
      built[key] = nodes.count
      index = built
    }
    keys.append(key)
    nodes.append(node)
  }

  /// Replaces the node at a position; the key keeps its first position, as ``SettingTable`` does.
  func replace(at position: Int, with node: Node) { nodes[position] = node }

  /// Appends to the array at `position` in place (no copy of the elements).
  func appendToArray(at position: Int, _ value: SettingValue) -> Bool {
    guard case .array(var items, let origin) = nodes[position] else { return false }
    nodes[position] = .value(value)  // drop the enum's reference so `items` is uniquely owned
    items.append(value)
    nodes[position] = .array(items, origin: origin)
    return true
  }

  /// The finished value. Depth is bounded by `ParseOptions.maxDepth`, checked on insertion.
  func build() -> SettingValue {
    var table = SettingTable()
    for (key, node) in zip(keys, nodes) {
      switch node {
      case .value(let value): table[key] = value
      case .array(let items, let origin): table[key] = SettingValue(.array(items), origin: origin)
      case .table(let child): table[key] = child.build()
      }
    }
    return SettingValue(.table(table), origin: origin)
  }
}

/// Where the parsed values go: the root table, the diagnostics, and the rules for putting a value at a
/// dotted path (nesting, duplicates, value/table conflicts).
final class INITreeBuilder {
  let root: INITable
  let maxDepth: Int
  var diagnostics: [Diagnostic] = []

  init(rootOrigin: Origin, maxDepth: Int) {
    root = INITable(origin: rootOrigin)
    self.maxDepth = maxDepth
  }

  /// The table at `parts` below `start`, created where missing (with `origin`), for a section header or
  /// the leading parts of a dotted key.
  /// - Parameter prefix: the path of `start`, for messages.
  func table(
    at parts: ArraySlice<INIPathPart>, below start: INITable, prefix: [String], origin: Origin, file: String
  ) throws(StrataError) -> INITable {
    var table = start
    var path = prefix
    for part in parts {
      path.append(part.name)
      if path.count > maxDepth {
        throw StrataError(
          .nestingTooDeep, "tables nested deeper than the limit of \(maxDepth)", path: file, line: part.line,
          column: part.column)
      }
      switch table[part.name] {
      case .table(let child)?:
        table = child
      case nil:
        let child = INITable(origin: origin)
        table.append(part.name, .table(child))
        table = child
      case let other?:
        throw StrataError(
          .syntax,
          "'\(Self.display(path))' is already a value (set at \(other.origin)); it cannot also be a table",
          path: file, line: part.line, column: part.column)
      }
    }
    return table
  }

  /// Puts a string at `parts` below `section` (whose path is `prefix`).
  /// - Parameter append: `key[] = v`: append to an array instead of replacing.
  func set(
    _ value: SettingValue, at parts: [INIPathPart], in section: INITable, prefix: [String], append: Bool,
    file: String
  ) throws(StrataError) {
    let last = parts[parts.count - 1]
    var keyOrigin: Origin { .file(path: file, line: parts[0].line, column: parts[0].column) }
    let table =
      parts.count == 1
      ? section
      : try self.table(at: parts.dropLast(), below: section, prefix: prefix, origin: keyOrigin, file: file)
    if prefix.count + parts.count > maxDepth {
      throw StrataError(
        .nestingTooDeep, "tables nested deeper than the limit of \(maxDepth)", path: file, line: last.line,
        column: last.column)
    }
    let position = table.position(of: last.name)
    guard let position else {
      table.append(last.name, append ? .array([value], origin: keyOrigin) : .value(value))
      return
    }
    let existing = table.nodes[position]
    if case .table(let child) = existing {
      throw StrataError(
        .syntax,
        "'\(pathText(prefix, parts))' is already a table (at \(child.origin)); it cannot also be a value",
        path: file, line: last.line, column: last.column)
    }
    if append && table.appendToArray(at: position, value) { return }
    diagnostics.append(
      Diagnostic(
        .warning,
        StrataError(
          .duplicateKey,
          "duplicate key '\(pathText(prefix, parts))' (first set at \(existing.origin)); the last value wins",
          path: file, line: last.line, column: last.column)))
    table.replace(at: position, with: append ? .array([value], origin: keyOrigin) : .value(value))
  }

  private func pathText(_ prefix: [String], _ parts: [INIPathPart]) -> String {
    Self.display(prefix + parts.map(\.name))
  }

  static func display(_ path: [String]) -> String { path.joined(separator: ".") }
}
