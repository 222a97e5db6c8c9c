import Strata

/// The effective configuration as JSON: every declared setting with its running value and origin, then
/// every other key the layers set, secrets redacted, and the changes waiting for a restart.
func configJSON(store: SettingsStore, groups: [SettingsGroup]) -> String {
  var rows: [String] = []
  var declared: Set<String> = []
  for record in groups.flatMap(\.allSettings) {
    declared.insert(record.key)
    rows.append(
      row(
        key: record.key, value: record.valueText, origin: record.origin,
        secret: record.traits.contains(.secret)))
  }
  let snapshot = store.snapshot
  let secretKeys = snapshot.secretKeys
  for entry in snapshot.entries where !declared.contains(entry.key) {
    let secret = secretKeys.contains(entry.key)
    rows.append(
      row(
        key: entry.key, value: secret ? "<redacted>" : "\(entry.value)", origin: entry.origin, secret: secret)
    )
  }
  let pending = store.pendingRestarts.map { jsonString($0.description) }
  return """
    {"generation": \(snapshot.generation),
     "settings": [
      \(rows.joined(separator: ",\n  "))
     ],
     "pendingRestart": [\(pending.joined(separator: ", "))]}

    """
}

private func row(key: String, value: String, origin: Origin, secret: Bool) -> String {
  #"{"key": \#(jsonString(key)), "value": \#(jsonString(value)), "origin": \#(jsonString(origin.description))"#
    + (secret ? #", "secret": true}"# : "}")
}

/// `text` as a JSON string.
func jsonString(_ text: String) -> String {
  var out = "\""
  for scalar in text.unicodeScalars {
    switch scalar {
    case "\"": out += "\\\""
    case "\\": out += "\\\\"
    case "\n": out += "\\n"
    case "\t": out += "\\t"
    case "\r": out += "\\r"
    case _ where scalar.value < 0x20:
      out +=
        "\\u" + String(repeating: "0", count: 4 - String(scalar.value, radix: 16).count)
        + String(scalar.value, radix: 16)
    default: out.unicodeScalars.append(scalar)
    }
  }
  return out + "\""
}
