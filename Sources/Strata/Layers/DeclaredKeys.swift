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
  /// The keys by generated environment name, without the prefix (`SERVER_PORT`).
  private(set) var keysByName: [String: [String]] = [:]

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
    keysByName[EnvironmentNames.unprefixedName(forKey: key), default: []].append(key)
  }

  /// Forgets a key.
  mutating func remove(_ key: String) {
    guard members.remove(key) != nil else { return }
    flags.remove(key)
    keys.removeAll { $0 == key }
    let name = EnvironmentNames.unprefixedName(forKey: key)
    keysByName[name]?.removeAll { $0 == key }
    if keysByName[name]?.isEmpty == true { keysByName[name] = nil }
  }
}
