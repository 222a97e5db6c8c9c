/// Renders a snapshot as text: the work behind `config-dump`.
public enum Dump {
  /// Renders the whole snapshot.
  /// - Throws: ``StrataError`` when the format cannot express the tree (an array of tables in INI), or
  ///   the `env` format has no prefix.
  public static func render(_ snapshot: Snapshot, options: DumpOptions) throws(StrataError) -> String {
    let snapshot = options.showSecrets ? snapshot : snapshot.redacting(snapshot.secretKeys)
    return try render(snapshot.root, entries: snapshot.entries, options: options)
  }

  /// Renders the value at one key: a leaf as its bare text (JSON for the `json` format), a table as the
  /// subtree in the chosen format.
  /// - Returns: `nil` when the key does not exist.
  public static func render(key: String, of snapshot: Snapshot, options: DumpOptions) throws(StrataError)
    -> String?
  {
    let snapshot = options.showSecrets ? snapshot : snapshot.redacting(snapshot.secretKeys)
    guard let node = snapshot.value(forKey: key) else { return nil }
    if node.isTable {
      let prefix = key + "."
      let entries = snapshot.entries.filter { $0.key.hasPrefix(prefix) }
      var subtree = SettingValue.emptyTable(origin: node.origin)
      for entry in entries { subtree.set(entry.value, at: String(entry.key.dropFirst(prefix.count))) }
      let relative = entries.map { entry in
        var copy = entry
        copy.key = key + "." + entry.key.dropFirst(prefix.count)
        return copy
      }
      if options.format == .table || options.format == .env {
        return try render(subtree, entries: relative, options: options)
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
      return line + "\n"
    }
  }

  private static func render(_ tree: SettingValue, entries: [Snapshot.Entry], options: DumpOptions)
    throws(StrataError) -> String
  {
    switch options.format {
    case .table: return TableDump.render(entries, options: options)
    case .json: return try JSONDump.render(tree, entries: entries, options: options)
    case .ini: return String(decoding: try INIFormat().serialize(tree), as: UTF8.self)
    case .plist: return String(decoding: try PropertyListFormat().serialize(tree), as: UTF8.self)
    case .env: return try EnvironmentDump.render(entries, options: options)
    }
  }
}
