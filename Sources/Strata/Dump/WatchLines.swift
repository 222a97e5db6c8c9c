/// The JSON lines `config-dump --watch` prints: one per changed key, one per error.
public enum WatchLines {
  /// `{"generation": 4, "key": "server.port", "old": 8080, "new": 9090, "origin": "/etc/demo/demo.ini:6:8"}`
  /// for each leaf key whose value differs between the snapshots (a removed key has `"new": null` and
  /// the old origin). Secret keys (from secret sources, plus `secretKeys`) are redacted.
  /// - Parameters:
  ///   - redactingSecretSources: also redact values from secret sources (a Secret volume).
  ///   - restartRequiredKeys: keys whose change a running program applies only at its next start; their
  ///     lines end with `"pendingRestart": true`.
  public static func changes(
    from old: Snapshot, to new: Snapshot, secretKeys: Set<String> = [], redactingSecretSources: Bool = true,
    restartRequiredKeys: Set<String> = []
  ) -> [String] {
    // Compare the real values (a secret that changes is still a change); print redacted ones.
    let shownOld = old.redacting(redactingSecretSources ? old.secretKeys.union(secretKeys) : secretKeys)
    let shownNew = new.redacting(redactingSecretSources ? new.secretKeys.union(secretKeys) : secretKeys)
    var lines: [String] = []
    var keys = new.keys
    keys += old.keys.filter { new.entry(forKey: $0) == nil }
    for key in keys {
      guard old.entry(forKey: key)?.value != new.entry(forKey: key)?.value else { continue }
      let before = shownOld.entry(forKey: key)
      let after = shownNew.entry(forKey: key)
      let origin = (after ?? before).map { $0.origin.description } ?? ""
      lines.append(
        line(
          [
            ("generation", SettingValue(.integer(new.generation), origin: .runtime)), ("key", string(key)),
            ("old", before?.value), ("new", after?.value), ("origin", string(origin)),
          ]
            + (restartRequiredKeys.contains(key)
              ? [("pendingRestart", SettingValue(.bool(true), origin: .runtime))] : [])))
    }
    return lines
  }

  /// `{"error": "expected ']'", "path": "/etc/demo/demo.ini", "line": 3, "column": 8}`.
  public static func error(_ error: StrataError) -> String {
    line([
      ("error", string(error.message)), ("path", error.path.map(string)),
      ("line", SettingValue(.integer(error.line), origin: .runtime)),
      ("column", SettingValue(.integer(error.column), origin: .runtime)),
    ])
  }

  /// `{"recovered": "expected Int for server.port, found \"80a\"", "path": …, "line": …, "column": …}`:
  /// the problem an earlier error line reported is gone.
  public static func recovered(_ error: StrataError) -> String {
    line([
      ("recovered", string(error.message)), ("path", error.path.map(string)),
      ("line", SettingValue(.integer(error.line), origin: .runtime)),
      ("column", SettingValue(.integer(error.column), origin: .runtime)),
    ])
  }

  /// `{"warning": "…", "path": "…"}`, for watcher fallbacks and pending restarts.
  public static func warning(_ message: String, path: String?) -> String {
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
