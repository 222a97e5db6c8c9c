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
    var known: [String] = []
    var options: [(key: String, option: String, origin: Origin)] = []
    for source in snapshot.sources {
      let (scope, document) = (source.scope, source.document)
      document.root.forEachLeaf { key, value in
        guard scope == .commandLine else { return known.append(key) }
        if case .commandLine(let option) = value.origin { options.append((key, option, value.origin)) }
      }
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
