/// The keys declared by registered settings, with the environment names they generate, kept up to date
/// one key at a time (so that registering a group costs what the group declares).
struct DeclaredKeys: Sendable {
  /// The keys, in registration order.
  private(set) var keys: [String] = []
  /// The keys, for lookups.
  private var members: Set<String> = []
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
    for key in keys where !contains(key) { add(key) }
  }

  /// Whether a key is declared.
  func contains(_ key: String) -> Bool { members.contains(key) }

  /// Adds a key that is not declared yet.
  mutating func add(_ key: String, isFlag: Bool = false) {
    if isFlag { flags.insert(key) }
    members.insert(key)
    keys.append(key)
    let name = EnvironmentNames.unprefixedName(forKey: key)
    if keyByName[name] == nil { keyByName[name] = key } else { moreKeysByName[name, default: []].append(key) }
  }

  /// Forgets a key.
  mutating func remove(_ key: String) {
    guard members.remove(key) != nil else { return }
    flags.remove(key)
    keys.removeAll { $0 == key }
    let name = EnvironmentNames.unprefixedName(forKey: key)
    var remaining = keys(named: name).filter { $0 != key }
    keyByName[name] = remaining.isEmpty ? nil : remaining.removeFirst()
    moreKeysByName[name] = remaining.isEmpty ? nil : remaining
  }
}
