/// The `table` format: one aligned row a key, and with `showShadowed` one indented row per hidden value.
enum TableDump {
  static func render(_ entries: [Snapshot.Entry], options: DumpOptions) -> String {
    var rows: [[String]] = []
    var header = ["KEY", "VALUE"]
    if options.showOrigin { header.append("ORIGIN") }
    rows.append(header)
    for entry in entries {
      var row = [entry.key, ValueText.plain(entry.value)]
      if options.showOrigin { row.append(entry.origin.description) }
      rows.append(row)
      if options.showShadowed {
        for hidden in entry.shadowed {
          var row = ["", "  shadows " + ValueText.plain(hidden.value)]
          row.append(options.showOrigin ? hidden.value.origin.description : "(\(hidden.value.origin))")
          rows.append(row)
        }
      }
    }
    let widths = (0..<header.count).map { column in
      rows.map { $0.count > column ? $0[column].count : 0 }.max() ?? 0
    }
    var out = ""
    for row in rows {
      var line = ""
      for (column, cell) in row.enumerated() {
        if column == row.count - 1 {
          line += cell
        } else {
          line += cell + String(repeating: " ", count: widths[column] - cell.count + 2)
        }
      }
      while line.hasSuffix(" ") { line.removeLast() }
      out += line + "\n"
    }
    return out
  }
}
