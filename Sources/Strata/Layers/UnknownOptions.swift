/// Options of a ``CommandLineLayer`` that set no known key, reported with a "did you mean".
///
/// With declared settings, ``SettingsSchema/unknownKeys(in:resolvePath:)`` reports them against the
/// declarations; a store without any reports them against the keys the other layers hold.
enum UnknownOptions {
  /// `unknown option '--server.prot' (did you mean '--server.port'?)`; `--no-debugg` suggests
  /// `--no-debug`.
  static func message(option: String, key: String, candidates: [String]) -> String {
    var message = "unknown option '\(option)'"
    if let match = Suggestions.closest(to: key, in: candidates) {
      let negated = option != CommandLineLayer.option(forKey: key)
      message += " (did you mean '\(negated ? "--no-" + match : CommandLineLayer.option(forKey: match))'?)"
    }
    return message
  }

  /// A warning for each command-line value whose key no other source of `snapshot` holds, when those
  /// sources hold any keys at all.
  static func diagnostics(in snapshot: Snapshot) -> [Diagnostic] {
    var options: [(key: String, option: String, origin: Origin)] = []
    for source in snapshot.sources where source.scope == .commandLine {
      source.document.root.forEachLeaf { key, value in
        if case .commandLine(let option) = value.origin { options.append((key, option, value.origin)) }
      }
    }
    // Without an option, the other layers' keys (10,000 from a remote source) need no walk.
    guard !options.isEmpty else { return [] }
    var known: [String] = []
    for source in snapshot.sources where source.scope != .commandLine {
      source.document.root.forEachLeaf { key, _ in known.append(key) }
    }
    guard !known.isEmpty else { return [] }
    let knownSet = Set(known)
    return options.filter { !knownSet.contains($0.key) }.map { key, option, origin in
      Diagnostic(
        .warning,
        located(StrataError(.unknownKey, message(option: option, key: key, candidates: known)), origin))
    }
  }
}
