/// Renders a snapshot as text: the work behind `config-dump`.
package enum Dump {
  /// Renders the whole snapshot.
  /// - Throws: ``StrataError`` when the format cannot express the tree (an array of tables in INI), or
  ///   the `env` format has no prefix.
  package static func render(_ snapshot: Snapshot, options: DumpOptions) throws(StrataError) -> String {
    let snapshot = options.showSecrets ? snapshot : snapshot.redacting(snapshot.secretKeys)
    return try render(snapshot.root, entries: snapshot.entries, options: options)
  }

  /// Renders the value at one key: a leaf as its bare text (JSON for the `json` format), a table as the
  /// subtree in the chosen format.
  /// - Returns: `nil` when the key does not exist.
  package static func render(key: String, of snapshot: Snapshot, options: DumpOptions) throws(StrataError)
    -> String?
  {
    let snapshot = options.showSecrets ? snapshot : snapshot.redacting(snapshot.secretKeys)
    guard let node = snapshot.value(forKey: key) else { return nil }
    if node.isTable {
      let depth = SettingKey.names(in: key).count
      var entries: [Snapshot.Entry] = []
      var subtree = node  // empty tables below the key stay
      for entry in snapshot.entries where entry.key != key && SettingKey.isKey(entry.key, within: key) {
        // Tables and env lines name the whole key; JSON and the file formats nest below the table.
        var relative = entry
        relative.key = SettingKey.join(SettingKey.names(in: entry.key).dropFirst(depth))
        subtree.set(entry.value, at: relative.key)
        entries.append(options.format == .table || options.format == .env ? entry : relative)
      }
      return try render(subtree, entries: entries, options: options)
    }
    let entry = snapshot.entry(forKey: key)
    switch options.format {
    case .json:
      var leaf = node
      if options.showOrigin, let entry {
        leaf = JSONDump.annotated(entry, showShadowed: options.showShadowed)
      }
      return try JSONDump.fragment(leaf)
    case .env:
      guard let entry else { return ValueText.plain(node) + "\n" }
      return try EnvironmentDump.render([entry], options: options)
    default:
      var line = ValueText.plain(node)
      if options.showOrigin { line += "\t" + node.origin.description }
      line += "\n"
      // With --show-shadowed, the hidden values follow, one a line, as the table shows them.
      for hidden in options.showShadowed ? entry?.shadowed ?? [] : [] {
        line += "  shadows \(ValueText.plain(hidden.value))\t\(hidden.value.origin)\n"
      }
      return line
    }
  }

  private static func render(_ tree: SettingValue, entries: [Snapshot.Entry], options: DumpOptions)
    throws(StrataError) -> String
  {
    switch options.format {
    case .table: return TableDump.render(entries, options: options)
    case .json: return try JSONDump.render(tree, entries: entries, options: options)
    case .ini:
      // With origins, each value line ends with its origin as a comment.
      return String(
        decoding: try INISerializer.serialize(tree, withOrigins: options.showOrigin), as: UTF8.self)
    case .plist: return String(decoding: try PropertyListFormat().serialize(tree), as: UTF8.self)
    case .env: return try EnvironmentDump.render(entries, options: options)
    }
  }
}
