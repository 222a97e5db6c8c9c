/// The keys declared by registered settings, with the environment names they generate, kept up to date
/// one key at a time (so that registering a group costs what the group declares).
struct DeclaredKeys: Sendable {
  /// The keys, in registration order. Looked up through `keyByName` (a key is among the keys of its
  /// own name): no set of the keys besides.
  private(set) var keys: [String] = []
  /// The keys of `Bool` settings: on a command line, a bare `--debug` before a positional argument is
  /// the flag, not that argument's option.
  private(set) var flags: Set<String> = []
  /// The key of each generated environment name, without the prefix (`SERVER_PORT`); a name that
  /// several keys generate has its others in `moreKeysByName` (one dictionary value per key, not an
  /// array: a registry of 100,000 settings would hold 100,000 one-element arrays).
  private var keyByName: [String: String] = [:]
  private var moreKeysByName: [String: [String]] = [:]

  /// The keys whose generated name (without the prefix) is `name`.
  func keys(named name: String) -> [String] {
    guard let first = keyByName[name] else { return [] }
    return [first] + (moreKeysByName[name] ?? [])
  }

  /// Every generated name (without the prefix).
  var names: Dictionary<String, String>.Keys { keyByName.keys }

  /// No keys.
  init() {}

  /// The given keys, each once.
  init(_ keys: some Sequence<String>) {
    for key in keys {
      let name = EnvironmentNames.unprefixedName(forKey: key)
      if !contains(key, named: name) { add(key, named: name) }
    }
  }

  /// Whether a key is declared.
  func contains(_ key: String) -> Bool {
    contains(key, named: EnvironmentNames.unprefixedName(forKey: key))
  }

  /// Whether a key whose generated name is `name` is declared.
  private func contains(_ key: String, named name: String) -> Bool {
    guard let first = keyByName[name] else { return false }
    return first == key || moreKeysByName[name]?.contains(key) == true
  }

  /// Adds a key that is not declared yet.
  mutating func add(_ key: String, isFlag: Bool = false) {
    add(key, named: EnvironmentNames.unprefixedName(forKey: key), isFlag: isFlag)
  }

  private mutating func add(_ key: String, named name: String, isFlag: Bool = false) {
    if isFlag { flags.insert(key) }
    keys.append(key)
    if keyByName[name] == nil { keyByName[name] = key } else { moreKeysByName[name, default: []].append(key) }
  }

  /// Forgets a key.
  mutating func remove(_ key: String) {
    let name = EnvironmentNames.unprefixedName(forKey: key)
    guard contains(key, named: name) else { return }
    flags.remove(key)
    keys.removeAll { $0 == key }
    var remaining = keys(named: name).filter { $0 != key }
    keyByName[name] = remaining.isEmpty ? nil : remaining.removeFirst()
    moreKeysByName[name] = remaining.isEmpty ? nil : remaining
  }
}
