/// The warnings one file's parse produces: the first ``limit`` are kept whole and the rest only
/// counted, as compilers do, so that a file with two million duplicate keys costs twenty warnings and a
/// summary — not 238 MB of text — while the count stays exact (`Diagnostic.occurrences`).
struct CappedDiagnostics: Sendable {
  /// How many diagnostics of one file are kept whole.
  static let limit = 20
  private(set) var kept: [Diagnostic] = []
  private(set) var omitted = 0

  /// Keeps `diagnostic`, or counts it once the limit is reached.
  mutating func append(_ diagnostic: Diagnostic) {
    if kept.count < Self.limit { kept.append(diagnostic) } else { omitted += 1 }
  }

  /// Orders the kept diagnostics.
  mutating func sort(by areInIncreasingOrder: (Diagnostic, Diagnostic) -> Bool) {
    kept.sort(by: areInIncreasingOrder)
  }

  /// The kept diagnostics, then, if some were left out, one that says how many and stands for them.
  var all: [Diagnostic] {
    guard omitted > 0, let last = kept.last else { return kept }
    var summary = Diagnostic(
      last.severity,
      StrataError(
        last.error.code,
        "and \(omitted) more \(last.severity.rawValue)\(omitted == 1 ? "" : "s") in this file (the first "
          + "\(Self.limit) are shown)", path: last.error.path))
    summary.occurrences = omitted
    return kept + [summary]
  }
}
