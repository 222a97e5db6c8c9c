/// The `json` format: the merged tree, or with origins, each leaf as `{"value": …, "origin": …}`.
///
/// JSON has no infinity or NaN: a double that is one (YAML's `.inf`, TOML's `nan`) is written as the
/// string `"inf"`, `"-inf"` or `"nan"`, which Swift's `Double(_:)` and Python's `float()` read back.
enum JSONDump {
  static func render(_ tree: SettingValue, entries: [Snapshot.Entry], options: DumpOptions)
    throws(StrataError)
    -> String
  {
    var output = tree
    if options.showOrigin || options.showShadowed {
      // Each leaf of the tree becomes its annotated form; tables, empty ones too, stay where they are.
      for entry in entries { output.set(annotated(entry, showShadowed: options.showShadowed), at: entry.key) }
    }
    return String(decoding: try JSONSerializer.serialize(output, nonFiniteAsText: true), as: UTF8.self)
  }

  /// `{"value": v, "origin": "…", "shadowed": [{"value": …, "origin": …}]}`.
  static func annotated(_ entry: Snapshot.Entry, showShadowed: Bool) -> SettingValue {
    var table = SettingTable()
    table["value"] = entry.value
    table["origin"] = SettingValue(.string(entry.origin.description), origin: entry.origin)
    if showShadowed {
      let hidden = entry.shadowed.map { hidden in
        SettingValue(
          .table(
            SettingTable([
              ("value", hidden.value),
              ("origin", SettingValue(.string(hidden.value.origin.description), origin: hidden.value.origin)),
            ])), origin: hidden.value.origin)
      }
      table["shadowed"] = SettingValue(.array(hidden), origin: entry.origin)
    }
    return SettingValue(.table(table), origin: entry.origin)
  }

  /// A JSON text for any value, including scalars (serialized inside a one-key table, then cut out).
  static func fragment(_ value: SettingValue) throws(StrataError) -> String {
    if value.isTable {
      return String(decoding: try JSONSerializer.serialize(value, nonFiniteAsText: true), as: UTF8.self)
    }
    let wrapped = SettingValue(.table(SettingTable([("v", value)])), origin: value.origin)
    var text = String(decoding: try JSONSerializer.serialize(wrapped, nonFiniteAsText: true), as: UTF8.self)
    // `{\n  "v": X\n}\n` → X, re-indented by two fewer spaces.
    guard let colon = text.firstIndex(of: ":") else { return text }
    text = String(text[text.index(colon, offsetBy: 2)...])
    while text.hasSuffix("\n") || text.hasSuffix("}") { text.removeLast() }
    return text.split(separator: "\n", omittingEmptySubsequences: false)
      .map { $0.hasPrefix("  ") ? String($0.dropFirst(2)) : String($0) }.joined(separator: "\n") + "\n"
  }
}
