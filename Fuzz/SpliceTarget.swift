/// Reloads that parse only the edited member (``DocumentSplice``): the input is a JSON document, a NUL
/// byte, and the document after an edit. Whenever the splice takes the edit, its document must be the
/// one a full parse of the edited text gives, node for node with every origin, and its spans those a
/// full parse records; whenever the full parse fails or warns, the splice must have declined.
enum SpliceTarget {
  static func run(_ bytes: [UInt8]) {
    guard let separator = bytes.firstIndex(of: 0) else { return }
    let old = Array(bytes[..<separator])
    let new = Array(bytes[(separator + 1)...])
    var format = JSONFormat()
    // Spans one level down for every member table, not only large ones.
    format.nestedSpanThreshold = 0
    let options = ParseOptions()
    let path = "/fuzz/input.json"
    guard let (document, spans) = try? format.parseRecordingSpans(old, path: path, options: options),
      let spans
    else { return }
    guard
      let spliced = DocumentSplice.splice(
        document, spans: spans, oldBytes: old, newBytes: new, format: format, options: options)
    else { return }
    let full = FormatTargets.expectSuccess("a full parse of an edit the splice took") {
      () throws(StrataError) in
      try format.parseRecordingSpans(new, path: path, options: options)
    }
    check(full.document.diagnostics.isEmpty, "the splice took an edit whose full parse warns")
    check(
      sameNodes(spliced.document.root, full.document.root),
      "the splice gave \(TreeComparison.describe(spliced.document.root)) where a full parse gives "
        + TreeComparison.describe(full.document.root))
    check(spliced.spans == full.spans, "the splice's spans differ from a full parse's")
  }

  /// Content, key order and origin of every node.
  private static func sameNodes(_ a: SettingValue, _ b: SettingValue) -> Bool {
    guard a.origin == b.origin else { return false }
    switch (a.kind, b.kind) {
    case (.table(let x), .table(let y)):
      return x.count == y.count && zip(x, y).allSatisfy { $0.key == $1.key && sameNodes($0.value, $1.value) }
    case (.array(let x), .array(let y)):
      return x.count == y.count && zip(x, y).allSatisfy { sameNodes($0, $1) }
    case (.double(let x), .double(let y)):
      return x == y || (x.isNaN && y.isNaN)
    default:
      return a.kind == b.kind
    }
  }
}
