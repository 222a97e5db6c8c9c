/// The values of a renamed setting, found under its key and its old keys (aliases).
///
/// Layer by layer, highest first: a document that sets the key gives its value (an old key in the same
/// document is ignored, with a warning); one that sets only an old key gives that value, with a warning
/// that the old name is deprecated. Warnings point at the old key where it is written.
struct RenamedKeyCandidates {
  /// The setting's key.
  let key: String
  /// Its old keys, in order of preference.
  let aliases: [String]
  /// Where files are read (under a root), to find where an old key is written.
  let resolvePath: @Sendable (String) -> String

  /// The candidate values, highest document first, and a warning for each old key used or ignored.
  func values(in documents: [Document], diagnostics: inout [Diagnostic]) -> [SettingValue] {
    var positions = KeyPosition(resolvePath: resolvePath)
    var values: [SettingValue] = []
    for document in documents.reversed() {
      var chosen = document.root.value(at: key)
      for alias in aliases {
        guard let old = document.root.value(at: alias) else { continue }
        let origin = positions.origin(ofKey: SettingKey.names(in: alias), valueOrigin: old.origin)
        let message: String
        if chosen == nil {
          chosen = old
          message = "'\(alias)' is deprecated; rename it to '\(key)'"
        } else {
          message = "'\(alias)' is ignored: '\(key)' is set too; remove the old name"
        }
        diagnostics.append(Diagnostic(.warning, located(StrataError(.deprecated, message), origin)))
      }
      if let chosen { values.append(chosen) }
    }
    return values
  }

  /// The documents with every old key's value moved to the key (where the key is not set) or dropped
  /// (where it is), and the warnings ``values(in:diagnostics:)`` gives: what `config-dump --schema` shows.
  func renamed(_ documents: [Document], diagnostics: inout [Diagnostic]) -> [Document] {
    documents.map { document in
      guard aliases.contains(where: { document.root.value(at: $0) != nil }) else { return document }
      var document = document
      let found = values(in: [document], diagnostics: &diagnostics)
      if document.root.value(at: key) == nil, let value = found.first { document.root.set(value, at: key) }
      for alias in aliases { document.root.remove(at: alias) }
      return document
    }
  }
}
