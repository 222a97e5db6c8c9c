/// How a snapshot and its entries describe themselves (`print`, `"\(entry)"`, `dump`, debuggers): keys,
/// values as text, origins, and for a secret `<redacted>` and the word `secret`, never the value.
extension Snapshot: CustomStringConvertible {
  /// The most entries a description lists; the rest are counted (`… 120 more keys`).
  static let describedEntryLimit = 50
  /// The most characters of a value a description shows (longer ones end in `…`).
  static let describedValueLimit = 120

  /// `Snapshot generation 3: 12 keys, 1 error, 0 warnings`, then one line per key
  /// (`  server.port = 8443 (/etc/demo/demo.ini:6:8)`, secrets redacted), at most
  /// 50 of them.
  public var description: String {
    let errors = diagnostics.filter { $0.severity == .error }.count
    let warnings = diagnostics.filter { $0.severity == .warning }.count
    var lines = [
      "Snapshot generation \(generation): \(counted(keys.count, "key")), \(counted(errors, "error")), "
        + counted(warnings, "warning")
    ]
    let shown = entries.prefix(Self.describedEntryLimit)
    lines += shown.map { "  " + $0.description }
    if keys.count > shown.count { lines.append("  … \(counted(keys.count - shown.count, "more key"))") }
    return lines.joined(separator: "\n")
  }
}

private func counted(_ count: Int, _ noun: String) -> String {
  "\(count) \(noun)\(count == 1 ? "" : "s")"
}

/// A value as one bounded line of text: `<redacted>` for a secret.
private func describedValue(_ value: SettingValue, secret: Bool) -> String {
  guard !secret else { return redactedText }
  let text = ValueText.plain(value)
  let limit = Snapshot.describedValueLimit
  return text.count > limit ? String(text.prefix(limit - 1)) + "…" : text
}

extension Snapshot.Entry: CustomStringConvertible, CustomReflectable {
  /// `server.port = 8443 (/etc/demo/demo.ini:6:8)`; a secret:
  /// `db.password = <redacted> (secret, /etc/demo/demo.ini:3:1)`.
  public var description: String {
    "\(key.escapingControlCharacters) = \(describedValue(value, secret: isSecret)) "
      + "(\(isSecret ? "secret, " : "")\(origin))"
  }

  /// What `dump(entry)` shows: the key, the value as text (redacted for a secret), the origin, the
  /// scope, whether it is secret, and the values it shadows (redacted alike).
  public var customMirror: Mirror {
    Mirror(
      self,
      children: [
        "key": key, "value": describedValue(value, secret: isSecret), "origin": origin.description,
        "scope": scope, "isSecret": isSecret, "shadowed": shadowed.map { $0.described(secret: isSecret) },
      ], displayStyle: .struct)
  }
}

extension Snapshot.Shadowed: CustomStringConvertible, CustomReflectable {
  /// `8080 (default)`; `<redacted> (secret, /run/secrets/db/password)` for a secret.
  var description: String { described(secret: false) }

  /// What `dump(shadowed)` shows: the value as text (redacted for a secret), its origin and scope.
  var customMirror: Mirror {
    Mirror(
      self,
      children: [
        "value": describedValue(value, secret: isSecret), "origin": value.origin.description, "scope": scope,
      ], displayStyle: .struct)
  }

  /// The description, redacted when this value or the entry hiding it is secret.
  func described(secret: Bool) -> String {
    let hidden = secret || isSecret
    return "\(describedValue(value, secret: hidden)) (\(hidden ? "secret, " : "")\(value.origin))"
  }
}
