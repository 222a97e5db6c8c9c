import Strata

/// The effective configuration as JSON, written by Strata's JSON format: every declared setting with its
/// running value and origin, then every other key the layers set, secrets redacted, and the changes
/// waiting for a restart.
///
/// `{"generation": 3, "settings": [{"key": "greeting.name", "value": "world", "origin": "…:8:8"}, …],
/// "pendingRestart": ["http.port: running 8080, 9999 after a restart"]}`
func configJSON(store: SettingsStore, groups: [any SettingsGroup]) -> String {
  var rows: [SettingValue] = []
  var declared: Set<String> = []
  for record in groups.flatMap(\.allSettings) {
    declared.insert(record.key)
    rows.append(row(record.key, record.valueText, record.origin, secret: record.traits.contains(.secret)))
  }
  let snapshot = store.snapshot
  for entry in snapshot.entries where !declared.contains(entry.key) {
    let secret = snapshot.isSecret(forKey: entry.key)
    rows.append(row(entry.key, secret ? "<redacted>" : "\(entry.value)", entry.value.origin, secret: secret))
  }
  let document = table([
    ("generation", SettingValue(.integer(snapshot.generation), origin: .runtime)),
    ("settings", SettingValue(.array(rows), origin: .runtime)),
    (
      "pendingRestart",
      SettingValue(.array(store.pendingRestarts.map { text($0.description) }), origin: .runtime)
    ),
  ])
  let json = FormatRegistry.standard.format(named: "json")
  let bytes = (try? json?.serialize(document)) ?? Array("{}\n".utf8)
  return String(decoding: bytes, as: UTF8.self)
}

/// One setting: key, value as text, origin, and `"secret": true` for secrets.
private func row(_ key: String, _ value: String, _ origin: Origin, secret: Bool) -> SettingValue {
  var fields = [("key", text(key)), ("value", text(value)), ("origin", text(origin.description))]
  if secret { fields.append(("secret", SettingValue(.bool(true), origin: .runtime))) }
  return table(fields)
}

private func text(_ string: String) -> SettingValue { SettingValue(.string(string), origin: .runtime) }

private func table(_ fields: [(String, SettingValue)]) -> SettingValue {
  SettingValue(.table(SettingTable(fields)), origin: .runtime)
}
