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
  /// Whether a section header names this very table (`[www]`; `[options.packages.find]` declares `find`,
  /// not `options` or `packages`). A table that is only on the way — to a dotted key's value
  /// (`listen.owner = x` makes `listen`) or to a header's table — gives way to a value of the same
  /// name: what it holds moves up under literal names with dots (the catalog's INIDialect article).
  var isDeclared = false
  // The entries are kept in the form the finished ``SettingTable`` uses, so that `build()` moves them
  // rather than copying. A child table's entry holds a placeholder (an empty table with the child's
  // origin) until then; an array's entry holds a placeholder with the array's origin, its items being
  // collected in `arrays`.
  // `@exclusivity(unchecked)`: a parse touches these from one thread, never overlapping, and the dynamic
  // check a class's stored `var` otherwise gets costs more than the append it guards.
  @exclusivity(unchecked) private var entries: [SettingTable.Entry] = []
  /// A hash of each key's bytes (see ``keyHash(_:)``), compared before the strings.
  @exclusivity(unchecked) private var hashes: [UInt32] = []
  /// The child tables, by position (`nil` where the key holds a value), made when the first child is
  /// added and as long as the last one's position: an array, where a dictionary hashed every position.
  @exclusivity(unchecked) private var children: [INITable?] = []
  /// The items of each `key[]` array, by position.
  @exclusivity(unchecked) private var arrays: [Int: [SettingValue]] = [:]
  /// Built only once a table grows past `linearLimit`: most sections have a few dozen keys, where a
  /// linear scan of short strings beats hashing each key (and growing a dictionary) several times.
  @exclusivity(unchecked) private var index: Index? = nil

  /// Key → position past `linearLimit` keys.
  private enum Index {
    /// While every key put in and asked for is ASCII: open addressing over the hashes already made
    /// (``KeyIndex``), where a `[String: Int]` hashed every key again with SipHash, twice per new key.
    case probing(KeyIndex)
    /// Once a non-ASCII key is put in or asked for: `String` hashing, under which canonically
    /// equivalent spellings (`é` precomposed or not, the Kelvin sign and `K`) are one key.
    case dictionary([String: Int])
  }
  private static let linearLimit = SettingTable.linearLimit

  /// A table with room for `capacity` keys before its arrays grow.
  init(origin: Origin, capacity: Int = 16) {
    self.origin = origin
    entries.reserveCapacity(capacity)
    hashes.reserveCapacity(capacity)
  }

  /// The number of keys.
  var count: Int { entries.count }

  /// ``KeyHash`` of an ASCII key's bytes, never 0; 0 for a key with non-ASCII bytes, whose equality is
  /// left to `String` (which compares canonically equivalent spellings equal).
  static func keyHash(_ bytes: UnsafeBufferPointer<UInt8>) -> UInt32 { KeyHash.of(bytes) }

  /// ``keyHash(_:)-(UnsafeBufferPointer<UInt8>)`` of a string's UTF-8.
  static func keyHash(_ key: String) -> UInt32 { KeyHash.of(key) }

  /// The position of a key, or `nil`.
  /// - Parameter hash: the key's ``keyHash(_:)-(String)``, when the caller has it.
  func position(of key: String, hash: UInt32? = nil) -> Int? {
    let hash = hash ?? Self.keyHash(key)
    switch index {
    case .probing(let keys)? where hash != 0:
      return keys.position(of: key, hash: hash) { entries[$0].key }
    case .probing?:
      return switchToDictionary()[key]
    case .dictionary(let keys)?:
      return keys[key]
    case nil:
      break
    }
    // Comparing two strings is a call into the runtime; most keys of a section differ in their hash.
    for position in hashes.indices {
      let other = hashes[position]
      if (other == hash || other == 0 || hash == 0) && entries[position].key == key { return position }
    }
    return nil
  }

  /// The child table at a position, or `nil` when the key holds a value or an array.
  func child(at position: Int) -> INITable? { position < children.count ? children[position] : nil }

  /// Puts a child table (or `nil`) at a position, growing `children` with `nil`s up to it.
  private func setChild(_ child: INITable?, at position: Int) {
    if position < children.count {
      children[position] = child
    } else if let child {
      children.reserveCapacity(entries.capacity)
      while children.count < position { children.append(nil) }
      children.append(child)
    }
  }

  /// Where the key at a position was set (for messages about a conflict or a duplicate).
  func origin(at position: Int) -> Origin { entries[position].value.origin }

  /// Adds a value under a key that is not in the table yet.
  func append(_ key: String, value: consuming SettingValue, hash: UInt32? = nil) {
    add(key, SettingTable.Entry(key: key, value: value), child: nil, hash: hash)
  }

  /// Adds an array of one item under a key that is not in the table yet (`key[] = v`).
  func append(_ key: String, arrayItem: consuming SettingValue, origin: Origin) {
    arrays[entries.count] = [arrayItem]
    add(key, SettingTable.Entry(key: key, value: SettingValue(.array([]), origin: origin)), child: nil)
  }

  /// Adds an array under a key that is not in the table yet (a `key[]` array moved to a new name).
  func append(_ key: String, arrayItems: [SettingValue], origin: Origin) {
    arrays[entries.count] = arrayItems
    add(key, SettingTable.Entry(key: key, value: SettingValue(.array([]), origin: origin)), child: nil)
  }

  /// Adds a child table under a key that is not in the table yet.
  func append(_ key: String, child: INITable) {
    add(key, SettingTable.Entry(key: key, value: .emptyTable(origin: child.origin)), child: child)
  }

  private func add(
    _ key: String, _ entry: consuming SettingTable.Entry, child: INITable?, hash: UInt32? = nil
  ) {
    let hash = hash ?? Self.keyHash(key)
    if index == nil && entries.count == Self.linearLimit {
      if hash != 0 && !hashes.contains(0) {
        var built = KeyIndex(capacity: Self.linearLimit * 4)
        for (position, existing) in entries.enumerated() {
          built.insert(
            existing.key, hash: hashes[position], at: position, earlier: entries[..<position].lazy.map(\.key))
        }
        index = .probing(built)
      } else {
        switchToDictionary()
      }
    }
    switch index {
    case .probing(var keys)? where hash != 0:
      index = nil  // so that the insert does not copy
      keys.insert(key, hash: hash, at: entries.count, earlier: entries.lazy.map(\.key))
      index = .probing(keys)
    case .probing?, .dictionary?:
      var keys = switchToDictionary()
      index = nil
      keys[key] = entries.count
      index = .dictionary(keys)
    case nil:
      break
    }
    if let child { setChild(child, at: entries.count) }
    hashes.append(hash)
    entries.append(entry)
  }

  /// The keys in order, each with its value (an array's items gathered) and its child table if any.
  func contents() -> [(key: String, value: SettingValue, child: INITable?)] {
    entries.indices.map { position in
      let value =
        arrays[position].map { SettingValue(.array($0), origin: entries[position].value.origin) }
        ?? entries[position].value
      return (entries[position].key, value, child(at: position))
    }
  }

  /// Puts a value or a table, under a new key, where a child table was (a table on the way flattened
  /// into literal names: its first one takes the table's place).
  func replaceChild(at position: Int, key: String, value: SettingValue, child: INITable?) {
    setChild(child, at: position)
    arrays[position] = nil
    let old = entries[position].key
    entries[position] = SettingTable.Entry(
      key: key, value: child.map { .emptyTable(origin: $0.origin) } ?? value)
    hashes[position] = Self.keyHash(key)
    if index != nil {
      var keys = switchToDictionary()
      index = nil
      keys[old] = nil
      keys[key] = position
      index = .dictionary(keys)
    }
  }

  /// Makes the index a `[String: Int]` of every key (from a ``Index/probing(_:)`` index or none) and
  /// returns it.
  @discardableResult
  private func switchToDictionary() -> [String: Int] {
    if case .dictionary(let keys)? = index, keys.count == entries.count { return keys }
    var keys = [String: Int](minimumCapacity: max(entries.count * 2, Self.linearLimit * 4))
    for (position, existing) in entries.enumerated() { keys[existing.key] = position }
    index = .dictionary(keys)
    return keys
  }

  /// Replaces the value at a position (a duplicate key: the last wins, the first position is kept).
  func replace(at position: Int, with value: consuming SettingValue) {
    arrays[position] = nil
    entries[position].value = value
  }

  /// Starts a new array at a position (`key[] = v` after a plain `key = v`).
  func replace(at position: Int, withArrayItem item: consuming SettingValue, origin: Origin) {
    replace(at: position, withArrayItems: [item], origin: origin)
  }

  /// Puts an array at a position, in place of what was there.
  func replace(at position: Int, withArrayItems items: [SettingValue], origin: Origin) {
    arrays[position] = items
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
      if let child { built[position].value = child.build() }
    }
    for (position, items) in arrays {
      built[position].value = SettingValue(.array(items), origin: built[position].value.origin)
    }
    children = []
    hashes = []
    arrays = [:]
    return SettingValue(.table(SettingTable(distinctEntries: built)), origin: origin)
  }
}

/// Where the parsed values go: the root table, the diagnostics, and the rules for putting a value at a
/// dotted path (nesting, duplicates, value/table conflicts).
final class INITreeBuilder {
  let root: INITable
  let maxDepth: Int
  var diagnostics = CappedDiagnostics()
  /// The room a new section's table starts with: the size of the section before it (files repeat one
  /// shape of section), at least 16 and at most 256 keys, so that most tables never grow.
  var sectionCapacity = 16

  init(rootOrigin: Origin, maxDepth: Int) {
    root = INITable(origin: rootOrigin)
    self.maxDepth = maxDepth
  }

  /// The table a section header names, created where missing (with `origin`) and declared. Where a
  /// part of the name is a value already (`[options.packages.find]` after `packages = find:` in
  /// `[options]`, as setuptools writes), the rest of the name is one literal name with dots.
  /// - Parameter prefix: the path of `start`, for messages.
  func table(
    at parts: ArraySlice<INIPathPart>, below start: INITable, prefix: [String], origin: Origin, file: String
  ) throws(StrataError) -> INITable {
    var table = start
    var depth = prefix.count
    var index = parts.startIndex
    while index < parts.endIndex {
      let part = parts[index]
      let isLast = index == parts.endIndex - 1
      depth += 1
      if depth > maxDepth {
        throw StrataError(
          .nestingTooDeep, "tables nested deeper than the limit of \(maxDepth)", path: file, line: part.line,
          column: part.column)
      }
      var name = part.name
      var position = table.position(of: name)
      if let found = position, table.child(at: found) == nil, !isLast {
        // A value where the name goes on: the rest of the name is one literal name.
        name = parts[index...].map(\.name).joined(separator: ".")
        index = parts.endIndex - 1
        position = table.position(of: name)
      }
      let declares = index == parts.endIndex - 1
      guard let position else {
        let child = INITable(origin: origin, capacity: sectionCapacity)
        child.isDeclared = declares
        table.append(name, child: child)
        table = child
        index += 1
        continue
      }
      guard let child = table.child(at: position) else {
        throw StrataError(
          .syntax,
          "'\(Self.display(prefix + parts.map(\.name)))' is already a value (set at \(table.origin(at: position))); "
            + "it cannot also be a section", path: file, line: part.line, column: part.column)
      }
      if declares { child.isDeclared = true }
      table = child
      index += 1
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
    var table = section
    for (index, part) in parts.dropLast().enumerated() {
      if prefix.count + index + 1 > maxDepth {
        throw StrataError(
          .nestingTooDeep, "tables nested deeper than the limit of \(maxDepth)", path: file, line: part.line,
          column: part.column)
      }
      guard let position = table.position(of: part.name) else {
        let child = INITable(origin: .file(path: file, line: first.line, column: first.column))
        table.append(part.name, child: child)
        table = child
        continue
      }
      if let child = table.child(at: position) {
        table = child
        continue
      }
      // `listen.owner = x` where `listen` is a value (php-fpm): the rest of the key is one literal name.
      let literal = parts[index...].map(\.name).joined(separator: ".")
      try insert(
        value, name: literal, line: part.line, column: part.column, keyStart: first, into: table,
        depth: prefix.count + index + 1, append: append, file: file
      ) { pathText(prefix, parts) }
      return
    }
    try insert(
      value, name: last.name, line: last.line, column: last.column, keyStart: first, into: table,
      depth: prefix.count + parts.count, append: append, file: file
    ) { pathText(prefix, parts) }
  }

  /// Turns the table on the way at `position` of `table` into literal names (`listen` holding `owner`
  /// becomes `listen.owner`; `packages` holding the declared section `find` becomes the section
  /// `packages.find`), so that a value can take the name: the same tree as when the value comes first.
  /// The name keeps its position, holding a placeholder until the caller puts the value there; a moved
  /// name that is in the table already follows the usual rules (values: the later one wins, with a
  /// warning; a value and a section: an error).
  private func flattenDottedTable(at position: Int, in table: INITable, name: String, file: String)
    throws(StrataError)
  {
    guard let child = table.child(at: position) else { return }
    var moved: [(key: String, value: SettingValue, child: INITable?, isArray: Bool)] = []
    func collect(_ node: INITable, _ path: String) {
      for (index, (key, value, inner)) in node.contents().enumerated() {
        if let inner, !inner.isDeclared {
          collect(inner, path + "." + key)
        } else {
          moved.append((path + "." + key, value, inner, node.isArray(at: index)))
        }
      }
    }
    collect(child, name)
    table.replaceChild(at: position, key: name, value: .emptyTable(origin: child.origin), child: nil)
    for entry in moved {
      guard let existing = table.position(of: entry.key) else {
        if let child = entry.child {
          table.append(entry.key, child: child)
        } else if entry.isArray, case .array(let items) = entry.value.kind {
          table.append(entry.key, arrayItems: items, origin: entry.value.origin)
        } else {
          table.append(entry.key, value: entry.value)
        }
        continue
      }
      let existingOrigin = table.origin(at: existing)
      guard entry.child == nil, table.child(at: existing) == nil else {
        let (value, section) =
          entry.child == nil ? (entry.value.origin, existingOrigin) : (existingOrigin, entry.value.origin)
        throw StrataError(
          .syntax, "'\(entry.key)' is set as a value (at \(value)) and as a section (at \(section))",
          path: file, line: Self.line(of: value), column: Self.column(of: value))
      }
      let movedIsLater = Self.isLater(entry.value.origin, than: existingOrigin)
      let (earlier, later) =
        movedIsLater ? (existingOrigin, entry.value.origin) : (entry.value.origin, existingOrigin)
      diagnostics.append(
        Diagnostic(
          .warning,
          StrataError(
            .duplicateKey, "duplicate key '\(entry.key)' (first set at \(earlier)); the last value wins",
            path: later.path ?? file, line: Self.line(of: later), column: Self.column(of: later))))
      if movedIsLater {
        if entry.isArray, case .array(let items) = entry.value.kind {
          table.replace(at: existing, withArrayItems: items, origin: entry.value.origin)
        } else {
          table.replace(at: existing, with: entry.value)
        }
      }
    }
  }

  /// Whether `origin` was written after `other`: later in the same file; a value from another file
  /// (an include) counts as later, as an include's values are read where it is named.
  private static func isLater(_ origin: Origin, than other: Origin) -> Bool {
    guard case .file(let path, let line, let column) = origin,
      case .file(let otherPath, let otherLine, let otherColumn) = other, path == otherPath
    else { return true }
    return (line, column) > (otherLine, otherColumn)
  }

  private static func line(of origin: Origin) -> Int {
    if case .file(_, let line, _) = origin { return line }
    return 0
  }

  private static func column(of origin: Origin) -> Int {
    if case .file(_, _, let column) = origin { return column }
    return 0
  }

  /// Puts a string at a one-part key (`port = 80`, the common case) in `section`.
  /// - Parameter hash: the key's ``INITable/keyHash(_:)-(UnsafeBufferPointer<UInt8>)``.
  func set(
    _ value: consuming SettingValue, key: String, hash: UInt32, line: Int, column: Int, in section: INITable,
    prefix: [String], file: String
  ) throws(StrataError) {
    try insert(
      value, name: key, hash: hash, line: line, column: column, keyStart: nil, into: section,
      depth: prefix.count + 1, append: false, file: file
    ) { Self.display(prefix + [key]) }
  }

  /// Puts a value under `name` in `table`, at nesting `depth`: a new key, an array append, or a duplicate
  /// (last wins, with a warning).
  /// - Parameters:
  ///   - keyStart: the key's first part, whose position an array's origin records (`nil`: `name`'s).
  ///   - displayPath: the full dotted key, for messages.
  private func insert(
    _ value: consuming SettingValue, name: String, hash: UInt32? = nil, line: Int, column: Int,
    keyStart: INIPathPart?, into table: INITable, depth: Int, append: Bool, file: String,
    displayPath: () -> String
  ) throws(StrataError) {
    if depth > maxDepth {
      throw StrataError(
        .nestingTooDeep, "tables nested deeper than the limit of \(maxDepth)", path: file, line: line,
        column: column)
    }
    var keyOrigin: Origin {
      .file(path: file, line: keyStart?.line ?? line, column: keyStart?.column ?? column)
    }
    guard let position = table.position(of: name, hash: hash) else {
      if append {
        table.append(name, arrayItem: value, origin: keyOrigin)
      } else {
        table.append(name, value: value, hash: hash)
      }
      return
    }
    let existingOrigin = table.origin(at: position)
    if let child = table.child(at: position) {
      guard !child.isDeclared else {
        throw StrataError(
          .syntax,
          "'\(displayPath())' is already a section (at \(existingOrigin)); it cannot also be a value",
          path: file, line: line, column: column)
      }
      // `listen = x` after `listen.owner = y`: the dotted keys become literal names, as if `listen`
      // had come first.
      try flattenDottedTable(at: position, in: table, name: name, file: file)
      if append {
        table.replace(at: position, withArrayItems: [value], origin: keyOrigin)
      } else {
        table.replace(at: position, with: value)
      }
      return
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

  static func display(_ path: [String]) -> String { SettingKey.join(path) }
}
