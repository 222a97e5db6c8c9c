/// The keys declared by registered settings, with the environment names they generate, kept up to date
/// one key at a time (so that registering a group costs what the group declares).
///
/// Each key is stored once, in ``keys``; the table that finds keys maps the hash of a generated name to
/// positions in ``keys`` (two words an entry, where a table of names to keys took four, and a set of the
/// keys two more). A key is found through its name (a key is among the keys its own name gives), and
/// what a hash finds is checked against the name, so that two names with one hash stay apart.
struct DeclaredKeys: Sendable {
  /// The keys, in registration order (a key declared first as an old name, then as a key, is here twice).
  private(set) var keys: [String] = []
  /// The keys of `Bool` settings: on a command line, a bare `--debug` before a positional argument is
  /// the flag, not that argument's option.
  private(set) var flags: Set<String> = []
  /// The keys of list settings (`[String]`): on a command line, only their options (and those of keys
  /// nothing declares) make a list when repeated; for the others the last one wins.
  private(set) var lists: Set<String> = []
  /// The first position in `keys` whose generated name (without the prefix, `SERVER_PORT`) has each
  /// hash; the others of a hash are in `morePositions` (one dictionary value per key, not an array: a
  /// registry of 100,000 settings would hold 100,000 one-element arrays).
  private var firstPosition: [Int: Int] = [:]
  private var morePositions: [Int: [Int]] = [:]
  /// The fields of struct settings (`http.tls.enabled`) by generated name (`HTTP_TLS_ENABLED`), learnt
  /// once when the setting is declared: a variable may set one field. They are not in ``keys`` (they are
  /// no settings of their own).
  private var fieldsByName: [String: [String]] = [:]
  /// Each struct setting's fields, so that forgetting the setting forgets them.
  private var fieldsOfKey: [String: [String]] = [:]

  /// How many names below a struct setting a field that variables and options can name may lie
  /// (`tls.client.required` is 2 below `tls`); deeper fields are set in files only.
  static let maxFieldDepth = 8

  /// No keys.
  init() {}

  /// The given keys, each once.
  init(_ keys: some Sequence<String>) {
    for key in keys {
      let name = EnvironmentNames.unprefixedName(forKey: key)
      if firstPosition(of: key, named: name, where: { _ in true }) == nil { add(key, named: name) }
    }
  }

  /// The positions in `keys` of the keys whose generated name has the hash of `name` (some of them may
  /// have another name).
  private func positions(hashing name: String) -> [Int] {
    let hash = name.hashValue
    guard let first = firstPosition[hash] else { return [] }
    return [first] + (morePositions[hash] ?? [])
  }

  /// The positions in `keys` of `key`, whose generated name is `name`.
  func positions(of key: String, named name: String) -> [Int] {
    positions(hashing: name).filter { keys[$0] == key }
  }

  /// The first position in `keys` of `key` (whose generated name is `name`) that `matches`, without
  /// making an array (registering a setting asks this once).
  func firstPosition(of key: String, named name: String, where matches: (Int) -> Bool) -> Int? {
    let hash = name.hashValue
    guard let first = firstPosition[hash] else { return nil }
    if keys[first] == key && matches(first) { return first }
    return morePositions[hash]?.first { keys[$0] == key && matches($0) }
  }

  /// The keys whose generated name (without the prefix) is `name`, in registration order, then the
  /// struct fields of that name.
  func keys(named name: String) -> [String] {
    var found: [String] = []
    for position in positions(hashing: name) {
      let key = keys[position]
      if !found.contains(key) && EnvironmentNames.unprefixedName(forKey: key) == name { found.append(key) }
    }
    for field in fieldsByName[name] ?? [] where !found.contains(field) { found.append(field) }
    return found
  }

  /// Every generated name (without the prefix), each once: computed from the keys (only suggestions for
  /// a mistyped variable name need them all).
  var names: [String] {
    var seen: Set<String> = []
    return (keys.map(EnvironmentNames.unprefixedName(forKey:)) + fieldsByName.keys.sorted()).filter {
      seen.insert($0).inserted
    }
  }

  /// Whether a key is declared.
  func contains(_ key: String) -> Bool {
    firstPosition(of: key, named: EnvironmentNames.unprefixedName(forKey: key), where: { _ in true }) != nil
  }

  /// Whether `key` is declared, or lies inside a declared key (a field of a struct setting's table).
  func containsKeyOrTable(holding key: String) -> Bool {
    if contains(key) { return true }
    let names = SettingKey.names(in: key)
    return (1..<max(names.count, 1)).contains { contains(SettingKey.join(names[..<$0])) }
  }

  /// Adds a key that is not declared yet.
  /// - Returns: its position in ``keys``.
  @discardableResult
  mutating func add(_ key: String, isFlag: Bool = false, isList: Bool = false) -> Int {
    add(key, named: EnvironmentNames.unprefixedName(forKey: key), isFlag: isFlag, isList: isList)
  }

  /// Adds a key whose generated name is `name`.
  /// - Returns: its position in ``keys``.
  @discardableResult
  mutating func add(_ key: String, named name: String, isFlag: Bool = false, isList: Bool = false) -> Int {
    if isFlag { flags.insert(key) }
    if isList { lists.insert(key) }
    let position = keys.count
    keys.append(key)
    let hash = name.hashValue
    if firstPosition[hash] == nil {
      firstPosition[hash] = position
    } else {
      morePositions[hash, default: []].append(position)
    }
    return position
  }

  /// Records the fields of the struct setting `key` (from its ``FieldShape``), those at most
  /// ``maxFieldDepth`` below it; `Bool` fields are flags.
  mutating func addFields(_ fields: [(key: String, isFlag: Bool)], of key: String) {
    guard !fields.isEmpty else { return }
    fieldsOfKey[key, default: []] += fields.map(\.key)
    for field in fields {
      fieldsByName[EnvironmentNames.unprefixedName(forKey: field.key), default: []].append(field.key)
      if field.isFlag { flags.insert(field.key) }
    }
  }

  /// Forgets the fields of the struct setting `key`.
  private mutating func removeFields(of key: String) {
    for field in fieldsOfKey.removeValue(forKey: key) ?? [] {
      let name = EnvironmentNames.unprefixedName(forKey: field)
      fieldsByName[name]?.removeAll { $0 == field }
      if fieldsByName[name]?.isEmpty == true { fieldsByName[name] = nil }
      flags.remove(field)
    }
  }

  /// Forgets keys (every position of each), and the fields of those that are struct settings.
  /// - Returns: for each position in ``keys`` before, its position after (`nil`: removed), or `nil`
  ///   when none of the keys was declared (nothing moved).
  @discardableResult
  mutating func remove(_ removed: some Sequence<String>) -> [Int?]? {
    var dropped: Set<Int> = []
    for key in removed {
      removeFields(of: key)
      let found = positions(of: key, named: EnvironmentNames.unprefixedName(forKey: key))
      guard !found.isEmpty else { continue }
      dropped.formUnion(found)
      flags.remove(key)
      lists.remove(key)
    }
    guard !dropped.isEmpty else { return nil }
    var moved: [Int?] = []
    moved.reserveCapacity(keys.count)
    var kept: [String] = []
    kept.reserveCapacity(keys.count - dropped.count)
    for (position, key) in keys.enumerated() {
      if dropped.contains(position) {
        moved.append(nil)
      } else {
        moved.append(kept.count)
        kept.append(key)
      }
    }
    keys = kept
    // Every hash keeps its positions that remain, renumbered, the first first.
    var first: [Int: Int] = [:]
    var more: [Int: [Int]] = [:]
    first.reserveCapacity(firstPosition.count)
    for (hash, position) in firstPosition {
      let remaining = ([position] + (morePositions[hash] ?? [])).compactMap { moved[$0] }
      guard let head = remaining.first else { continue }
      first[hash] = head
      if remaining.count > 1 { more[hash] = Array(remaining.dropFirst()) }
    }
    firstPosition = first
    morePositions = more
    return moved
  }

  /// Forgets a key.
  mutating func remove(_ key: String) {
    remove(CollectionOfOne(key))
  }
}
