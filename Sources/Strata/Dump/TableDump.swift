/// The `table` format: one aligned row a key, and with `showShadowed` one indented row per hidden value.
///
/// Columns align by display width (a CJK character takes two columns). A string that is empty, starts
/// or ends with blanks, or starts with `"` is shown in double quotes (`""`, `"  x "`, `"\"hi\""`, with
/// `"` and `\` inside escaped), so that it can be seen and is not mistaken for a quoted one; other
/// strings are shown as they are (`say "hi"`), in arrays too. Control characters in keys and values are
/// escaped. With
/// ``DumpOptions/maxWidth``, values are cut with `…` so that each row fits.
enum TableDump {
  static func render(_ entries: [Snapshot.Entry], options: DumpOptions) -> String {
    var rows: [[String]] = []
    var header = ["KEY", "VALUE"]
    if options.showOrigin { header.append("ORIGIN") }
    rows.append(header)
    for entry in entries {
      var row = [entry.key.escapingControlCharacters, shown(entry.value)]
      if options.showOrigin { row.append(entry.origin.description.escapingControlCharacters) }
      rows.append(row)
      if options.showShadowed {
        for hidden in entry.shadowed {
          var row = ["", "  shadows " + shown(hidden.value)]
          row.append(
            (options.showOrigin ? hidden.value.origin.description : "(\(hidden.value.origin))")
              .escapingControlCharacters)
          rows.append(row)
        }
      }
    }
    if let maxWidth = options.maxWidth { fit(&rows, into: maxWidth) }
    let widths = (0..<header.count).map { column in
      rows.map { $0.count > column ? DisplayWidth.of($0[column]) : 0 }.max() ?? 0
    }
    var out = ""
    for row in rows {
      var line = ""
      for (column, cell) in row.enumerated() {
        if column == row.count - 1 {
          line += cell
        } else {
          line += cell + String(repeating: " ", count: widths[column] - DisplayWidth.of(cell) + 2)
        }
      }
      while line.hasSuffix(" ") { line.removeLast() }
      out += line + "\n"
    }
    return out
  }

  /// A value as a cell: quoted when a string's blanks would otherwise be invisible.
  static func shown(_ value: SettingValue) -> String {
    // Items of an array follow the same rule: `["", " a", b]`.
    if case .array(let items) = value.kind { return "[" + items.map(shown).joined(separator: ", ") + "]" }
    guard case .string(let text) = value.kind,
      text.isEmpty || text.first!.isWhitespace || text.last!.isWhitespace || text.first == "\""
    else { return ValueText.plain(value) }
    let escaped = text.replacing("\\", with: "\\\\").replacing("\"", with: "\\\"")
    return "\"" + ValueText.plain(SettingValue(.string(escaped), origin: value.origin)) + "\""
  }

  /// Cuts the value column so that rows fit in `width` columns (keys and origins are kept whole).
  private static func fit(_ rows: inout [[String]], into width: Int) {
    let keyWidth = rows.map { DisplayWidth.of($0[0]) }.max() ?? 0
    let originWidth = rows.map { $0.count > 2 ? DisplayWidth.of($0[2]) + 2 : 0 }.max() ?? 0
    let available = max(width - keyWidth - 2 - originWidth, 12)
    for index in rows.indices where DisplayWidth.of(rows[index][1]) > available {
      rows[index][1] = DisplayWidth.truncated(rows[index][1], to: available)
    }
  }
}
