/// The JSON lines `config-dump --watch` prints: one per changed key, one per error.
package enum WatchLines {
  /// `{"generation": 4, "key": "server.port", "old": 8080, "new": 9090, "origin": "/etc/demo/demo.ini:6:8"}`
  /// for each leaf key whose value differs between the snapshots (a removed key has `"new": null` and
  /// the old origin). Secret keys (from secret sources, plus `secretKeys`) are redacted.
  /// - Parameters:
  ///   - redactingSecretSources: also redact values from secret sources (a Secret volume).
  ///   - restartRequiredKeys: keys whose change a running program applies only at its next start; their
  ///     lines end with `"pendingRestart": true`.
  package static func changes(
    from old: Snapshot, to new: Snapshot, secretKeys: Set<String> = [], redactingSecretSources: Bool = true,
    restartRequiredKeys: Set<String> = []
  ) -> [String] {
    changes(
      from: old, to: new, hiding: { secretKeys.contains($0) }, redactingSecretSources: redactingSecretSources,
      restartRequiredKeys: restartRequiredKeys)
  }

  /// The lines for each changed leaf key, as above, with the keys to redact given by a test that is
  /// asked only about the keys that changed (and the tables above them).
  /// - Parameters:
  ///   - hiding: whether a key (or a table holding it) is secret.
  ///   - redactingSecretSources: also redact values from secret sources (a Secret volume).
  ///   - restartRequiredKeys: keys whose lines end with `"pendingRestart": true`.
  package static func changes(
    from old: Snapshot, to new: Snapshot, hiding: (String) -> Bool, redactingSecretSources: Bool = true,
    restartRequiredKeys: Set<String> = []
  ) -> [String] {
    // Compare the real values (a secret that changes is still a change); print redacted ones.
    func shown(_ entry: Snapshot.Entry?, in snapshot: Snapshot) -> SettingValue? {
      guard let entry else { return nil }
      var hidden =
        redactingSecretSources && (entry.isSecret || snapshot.declaredSecretKeys.contains(entry.key))
      var key: String? = entry.key
      while !hidden, let current = key {
        hidden = hiding(current) || (redactingSecretSources && snapshot.declaredSecretKeys.contains(current))
        key = SettingKey.parent(of: current)
      }
      return hidden ? SettingValue(.string(redactedText), origin: entry.value.origin) : entry.value
    }
    let changes = new.changes(since: old)
    return (changes.changedValues + changes.removed).map { key in
      let before = old.entry(forKey: key)
      let after = new.entry(forKey: key)
      let origin = (after ?? before).map { $0.origin.description } ?? ""
      return line(
        [
          ("generation", SettingValue(.integer(new.generation), origin: .runtime)), ("key", string(key)),
          ("old", shown(before, in: old)), ("new", shown(after, in: new)), ("origin", string(origin)),
        ]
          + (restartRequiredKeys.contains(key)
            ? [("pendingRestart", SettingValue(.bool(true), origin: .runtime))] : []))
    }
  }

  /// `{"generation": 5, "key": "server.maxConnections", "kept": 4096, "rejected": "80a", "origin": "/etc/demo/demo.ini:3:18"}`:
  /// the program rejects the value the files now hold (at `origin`) and keeps running with `kept`.
  /// - Parameter hidden: whether both values are secret (`<redacted>`).
  package static func kept(
    generation: Int, key: String, running: SettingValue, rejected: SettingValue, hidden: Bool
  ) -> String {
    let redacted = string(redactedText)
    return line([
      ("generation", SettingValue(.integer(generation), origin: .runtime)), ("key", string(key)),
      ("kept", hidden ? redacted : running), ("rejected", hidden ? redacted : rejected),
      ("origin", string(rejected.origin.description)),
    ])
  }

  /// `{"error": "expected ']'", "path": "/etc/demo/demo.ini", "line": 3, "column": 8}`.
  package static func error(_ error: StrataError) -> String {
    line([
      ("error", string(error.message)), ("path", error.path.map(string)),
      ("line", SettingValue(.integer(error.line), origin: .runtime)),
      ("column", SettingValue(.integer(error.column), origin: .runtime)),
    ])
  }

  /// `{"recovered": "expected Int for server.port, found \"80a\"", "path": …, "line": …, "column": …}`:
  /// the problem an earlier error line reported is gone.
  package static func recovered(_ error: StrataError) -> String {
    line([
      ("recovered", string(error.message)), ("path", error.path.map(string)),
      ("line", SettingValue(.integer(error.line), origin: .runtime)),
      ("column", SettingValue(.integer(error.column), origin: .runtime)),
    ])
  }

  /// `{"warning": "…", "path": "…"}`, for watcher fallbacks and pending restarts.
  package static func warning(_ message: String, path: String?) -> String {
    line([("warning", string(message)), ("path", path.map(string))])
  }

  /// A JSON object on one line; `nil` values are written as `null`.
  private static func line(_ fields: [(String, SettingValue?)]) -> String {
    let parts = fields.map { name, value in
      // Strings, numbers and trees of them always serialize; `null` stands for an absent value.
      let text = value.flatMap { try? JSONSerializer.serializeLine($0) } ?? "null"
      return ((try? JSONSerializer.serializeLine(string(name))) ?? "\"\"") + ": " + text
    }
    return "{" + parts.joined(separator: ", ") + "}"
  }

  private static func string(_ text: String) -> SettingValue { SettingValue(.string(text), origin: .runtime) }
}
