/// A format that can change one key of a file in place, keeping everything else byte for byte
/// (comments, blank lines, order).
///
/// Writes (`save(_:)` on a setting's record, ``SettingsStore/saveValue(_:forKey:)-512me``) use
/// ``edit(_:setting:at:path:options:)`` when the file's format conforms; a format that does not is
/// written by parsing the file, setting the key in the tree and serializing the whole tree (comments are
/// lost).
///
/// <!-- snippet: Tests/StrataTests/Formats/FormatSymbolSnippets.swift#EditableFormat -->
/// ```swift
/// let bytes = try INIFormat().edit(
///   old, setting: SettingValue(.string("9000"), origin: .runtime), at: "server.port",
///   path: "/etc/demo/demo.ini", options: ParseOptions())
/// ```
protocol EditableFormat: ConfigFormat {
  /// The file's bytes with `value` set at `key`, or the key removed.
  ///
  /// A file that does not parse is never edited: its parse error is thrown.
  /// - Parameters:
  ///   - bytes: the file as it is now (empty for a new file).
  ///   - value: the new value (a scalar, an array or a table), or `nil` to remove the key.
  ///   - key: the key, written as one string (see ``SettingKey``).
  ///   - path: the path reported in errors.
  ///   - options: limits, as for parsing.
  /// - Throws: ``StrataError``: the file's parse error, or `typeMismatch` for a value the format
  ///   cannot hold.
  func edit(
    _ bytes: [UInt8], setting value: SettingValue?, at key: String, path: String, options: ParseOptions
  )
    throws(StrataError) -> [UInt8]
}

/// Applies a table written at `key` leaf by leaf, as the line editors do: each new leaf is set, then
/// each leaf of `current` (the file's value at `key`) that the new table no longer has is removed.
/// - Parameter apply: sets (or, given `nil`, removes) one key.
func applyLeafByLeaf(
  _ table: SettingTable, at key: String, current: SettingValue?,
  _ apply: (SettingValue?, String) throws(StrataError) -> Void
) throws(StrataError) {
  var newKeys: Set<String> = []
  for (name, child) in table {
    let childKey = SettingKey.appending(name, to: key)
    newKeys.insert(childKey)
    try apply(child, childKey)
  }
  var stale: [String] = []
  current?.forEachLeaf(prefix: key) { leaf, _ in
    if !newKeys.contains(where: { SettingKey.isKey(leaf, within: $0) }) { stale.append(leaf) }
  }
  for leaf in stale { try apply(nil, leaf) }
}
