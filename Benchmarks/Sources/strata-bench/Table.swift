/// One row of the results table.
struct Row {
  /// What is measured, with its unit.
  var name: String
  /// Strata's figure.
  var ours: String
  /// The other implementation's (or the baseline's) figure, naming it.
  var theirs: String
  /// How ours compares (`12.3× faster`, `1.4× slower`), or `—`.
  var ratio: String
  /// The target, or `—` when there is none.
  var target: String
  /// `yes`, `no`, or `—` when there is no target.
  var met: String
}

/// Formats a number with `digits` significant decimals and thousands separators.
func format(_ value: Double, decimals: Int = 1) -> String {
  guard value.isFinite else { return "\(value)" }
  var scale = 1.0
  for _ in 0..<decimals { scale *= 10 }
  let rounded = (abs(value) * scale).rounded() / scale
  let whole = Int(rounded)
  var text = String(whole)
  var grouped = ""
  for (index, character) in text.reversed().enumerated() {
    if index > 0 && index % 3 == 0 { grouped.append(",") }
    grouped.append(character)
  }
  text = String(grouped.reversed())
  if decimals > 0 {
    let fraction = Int(((rounded - Double(whole)) * scale).rounded())
    let digits = String(fraction)
    text += "." + String(repeating: "0", count: decimals - digits.count) + digits
  }
  return (value < 0 ? "-" : "") + text
}

/// `ours` against `theirs` for a measure where smaller is better (time): `7.1× faster` / `1.3× slower`.
func speedRatio(ours: Double, theirs: Double) -> String {
  guard ours > 0, theirs > 0 else { return "—" }
  return ours <= theirs
    ? "\(format(theirs / ours, decimals: ratioDecimals(theirs / ours)))× faster"
    : "\(format(ours / theirs, decimals: ratioDecimals(ours / theirs)))× slower"
}

/// `ours` against `theirs` for a measure where larger is better (throughput).
func throughputRatio(ours: Double, theirs: Double) -> String {
  speedRatio(ours: theirs, theirs: ours)
}

private func ratioDecimals(_ ratio: Double) -> Int { ratio >= 100 ? 0 : ratio >= 10 ? 1 : 2 }

/// `yes` or `no`.
func yesNo(_ condition: Bool) -> String { condition ? "yes" : "no" }

/// Renders rows as a Markdown table (pasteable into BENCHMARKS.md), columns padded for the terminal.
func markdownTable(headers: [String], rows: [[String]]) -> String {
  var widths = headers.map(\.count)
  for row in rows {
    for (index, cell) in row.enumerated() { widths[index] = max(widths[index], cell.count) }
  }
  func line(_ cells: [String]) -> String {
    "| "
      + cells.enumerated().map { index, cell in
        cell + String(repeating: " ", count: widths[index] - cell.count)
      }.joined(separator: " | ") + " |"
  }
  var lines = [line(headers)]
  lines.append("|" + widths.map { String(repeating: "-", count: $0 + 2) }.joined(separator: "|") + "|")
  lines += rows.map(line)
  return lines.joined(separator: "\n")
}

/// The results table.
func resultsTable(_ rows: [Row]) -> String {
  markdownTable(
    headers: ["row", "ours", "theirs/baseline", "ratio", "target", "met?"],
    rows: rows.map { [$0.name, $0.ours, $0.theirs, $0.ratio, $0.target, $0.met] })
}
