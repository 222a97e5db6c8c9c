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
  let origin: Origin
  // The entries are kept in the form the finished ``SettingTable`` uses, so that `build()` moves them
  // rather than copying. A child table's entry holds a placeholder (an empty table with the child's
  // origin) until then; an array's entry holds a placeholder with the array's origin, its items being
  // collected in `arrays`.
  // `@exclusivity(unchecked)`: a parse touches these from one thread, never overlapping, and the dynamic
  // check a class's stored `var` otherwise gets costs more than the append it guards.
  @exclusivity(unchecked) private var entries: [SettingTable.Entry] = []
  /// The child table at each position, `nil` for values and arrays.
  @exclusivity(unchecked) private var children: [INITable?] = []
  /// The items of each `key[]` array, by position.
  @exclusivity(unchecked) private var arrays: [Int: [SettingValue]] = [:]
  /// Built only once a table grows past `linearLimit`: most sections have a few dozen keys, where a
  /// linear scan of short strings beats hashing each key (and growing a dictionary) several times.
  @exclusivity(unchecked) private var index: [String: Int]? = nil
  private static let linearLimit = SettingTable.linearLimit

  init(origin: Origin) {
    self.origin = origin
    entries.reserveCapacity(8)
    children.reserveCapacity(8)
  }

  /// The position of a key, or `nil`.
  func position(of key: String) -> Int? {
    if let index { return index[key] }
    return entries.firstIndex { $0.key == key }
  }

  /// The child table at a position, or `nil` when the key holds a value or an array.
  func child(at position: Int) -> INITable? { children[position] }

  /// Where the key at a position was set (for messages about a conflict or a duplicate).
  func origin(at position: Int) -> Origin { entries[position].value.origin }

  /// Adds a value under a key that is not in the table yet.
  func append(_ key: String, value: consuming SettingValue) {
    add(key, SettingTable.Entry(key: key, value: value), child: nil)
  }

  /// Adds an array of one item under a key that is not in the table yet (`key[] = v`).
  func append(_ key: String, arrayItem: consuming SettingValue, origin: Origin) {
    arrays[entries.count] = [arrayItem]
    add(key, SettingTable.Entry(key: key, value: SettingValue(.array([]), origin: origin)), child: nil)
  }

  /// Adds a child table under a key that is not in the table yet.
  func append(_ key: String, child: INITable) {
    add(key, SettingTable.Entry(key: key, value: .emptyTable(origin: child.origin)), child: child)
  }

  private func add(_ key: String, _ entry: consuming SettingTable.Entry, child: INITable?) {
    if index != nil {
      index![key] = entries.count
    } else if entries.count == Self.linearLimit {
      var built = [String: Int](minimumCapacity: Self.linearLimit * 4)
      for (position, existing) in entries.enumerated() { built[existing.key] = position }
      built[key] = entries.count
      index = consume built
    }
    entries.append(entry)
    children.append(child)
  }

  /// Replaces the value at a position (a duplicate key: the last wins, the first position is kept).
  func replace(at position: Int, with value: consuming SettingValue) {
    arrays[position] = nil
    entries[position].value = value
  }

  /// Starts a new array at a position (`key[] = v` after a plain `key = v`).
  func replace(at position: Int, withArrayItem item: consuming SettingValue, origin: Origin) {
    arrays[position] = [item]
    entries[position].value = SettingValue(.array([]), origin: origin)
  }

  /// Whether the key at a position holds a `key[]` array.
  func isArray(at position: Int) -> Bool { arrays[position] != nil }

  /// Appends to the array at `position` (which ``isArray(at:)``) in place.
  func appendToArray(at position: Int, _ value: consuming SettingValue) {
    arrays[position]!.append(value)
  }

  /// The finished value, built by moving this table's entries out (the table is left empty): the parse
  /// is over, and moving saves a retain and release of every string in the file.
  /// Depth is bounded by `ParseOptions.maxDepth`, checked on insertion.
  func build() -> SettingValue {
    var built = entries
    entries = []
    index = nil
    for (position, child) in children.enumerated() {
      guard let child else { continue }
      built[position].value = child.build()
    }
    for (position, items) in arrays {
      built[position].value = SettingValue(.array(items), origin: built[position].value.origin)
    }
    children = []
    arrays = [:]
    return SettingValue(.table(SettingTable(distinctEntries: built)), origin: origin)
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
      guard let position = table.position(of: part.name) else {
        let child = INITable(origin: origin)
        table.append(part.name, child: child)
        table = child
        continue
      }
      guard let child = table.child(at: position) else {
        throw StrataError(
          .syntax,
          "'\(Self.display(path))' is already a value (set at \(table.origin(at: position))); it cannot also be a table",
          path: file, line: part.line, column: part.column)
      }
      table = child
    }
    return table
  }

  /// Puts a string at `parts` below `section` (whose path is `prefix`).
  /// - Parameter append: `key[] = v`: append to an array instead of replacing.
  func set(
    _ value: consuming SettingValue, at parts: [INIPathPart], in section: INITable, prefix: [String],
    append: Bool,
    file: String
  ) throws(StrataError) {
    let first = parts[0]
    let last = parts[parts.count - 1]
    let table =
      parts.count == 1
      ? section
      : try self.table(
        at: parts.dropLast(), below: section, prefix: prefix,
        origin: .file(path: file, line: first.line, column: first.column), file: file)
    try insert(
      value, name: last.name, line: last.line, column: last.column, keyStart: first, into: table,
      depth: prefix.count + parts.count, append: append, file: file
    ) { pathText(prefix, parts) }
  }

  /// Puts a string at a one-part key (`port = 80`, the common case) in `section`.
  func set(
    _ value: consuming SettingValue, key: String, line: Int, column: Int, in section: INITable,
    prefix: [String],
    file: String
  ) throws(StrataError) {
    try insert(
      value, name: key, line: line, column: column, keyStart: nil, into: section, depth: prefix.count + 1,
      append: false, file: file
    ) { Self.display(prefix + [key]) }
  }

  /// Puts a value under `name` in `table`, at nesting `depth`: a new key, an array append, or a duplicate
  /// (last wins, with a warning).
  /// - Parameters:
  ///   - keyStart: the key's first part, whose position an array's origin records (`nil`: `name`'s).
  ///   - displayPath: the full dotted key, for messages.
  private func insert(
    _ value: consuming SettingValue, name: String, line: Int, column: Int, keyStart: INIPathPart?,
    into table: INITable, depth: Int, append: Bool, file: String, displayPath: () -> String
  ) throws(StrataError) {
    if depth > maxDepth {
      throw StrataError(
        .nestingTooDeep, "tables nested deeper than the limit of \(maxDepth)", path: file, line: line,
        column: column)
    }
    var keyOrigin: Origin {
      .file(path: file, line: keyStart?.line ?? line, column: keyStart?.column ?? column)
    }
    guard let position = table.position(of: name) else {
      if append {
        table.append(name, arrayItem: value, origin: keyOrigin)
      } else {
        table.append(name, value: value)
      }
      return
    }
    let existingOrigin = table.origin(at: position)
    if table.child(at: position) != nil {
      throw StrataError(
        .syntax,
        "'\(displayPath())' is already a table (at \(existingOrigin)); it cannot also be a value",
        path: file, line: line, column: column)
    }
    if append && table.isArray(at: position) {
      table.appendToArray(at: position, value)
      return
    }
    diagnostics.append(
      Diagnostic(
        .warning,
        StrataError(
          .duplicateKey,
          "duplicate key '\(displayPath())' (first set at \(existingOrigin)); the last value wins",
          path: file, line: line, column: column)))
    if append {
      table.replace(at: position, withArrayItem: value, origin: keyOrigin)
    } else {
      table.replace(at: position, with: value)
    }
  }

  private func pathText(_ prefix: [String], _ parts: [INIPathPart]) -> String {
    Self.display(prefix + parts.map(\.name))
  }

  static func display(_ path: [String]) -> String { path.joined(separator: ".") }
}
