/// An INI line that meant `key = value` but has no `=`: `logLevel warning` is read as a flag named
/// `logLevel warning`, and the setting it meant falls back.
extension SettingsSchema {
  /// `a line without '=' is read as a flag named 'logLevel warning'; did you mean `logLevel = warning`?`,
  /// for an unknown flag (a file's key whose value is the flag's `true`) whose last name is a declared
  /// key, a space or tab, and more; else `nil`.
  func missingEqualsHint(forKey key: String, value: SettingValue) -> String? {
    guard case .file = value.origin, value.kind == .string("true") else { return nil }
    var names = SettingKey.names(in: key)
    guard let name = names.popLast(), let gap = name.firstIndex(where: { $0 == " " || $0 == "\t" }) else {
      return nil
    }
    let written = String(name[..<gap])
    let rest = name[gap...].drop { $0 == " " || $0 == "\t" }
    // The flag's name is taken literally, so a dotted `log.level warning` meant the key `log.level`.
    guard !written.isEmpty, !rest.isEmpty, declares(SettingKey.join(names + SettingKey.names(in: written)))
    else { return nil }
    return "a line without '=' is read as a flag named '\(name)'; did you mean `\(written) = \(rest)`?"
  }
}
