import FoundationEssentials

/// TOML: the parse must give a document or a ``StrataError`` with a line and column; a parsed tree
/// must serialize, and reading the result back must give the same content (tables may list their
/// scalars first; dates come back to the microsecond).
enum TOMLTarget {
  static func run(_ bytes: [UInt8]) {
    let format = TOMLFormat()
    let document: Document
    do {
      document = try format.parse(bytes, path: "/fuzz/input.toml", options: ParseOptions())
    } catch {
      check(
        error.code == .fileTooLarge || (error.line > 0 && error.column > 0),
        "a TOML error without a line and column: \(error)")
      return
    }
    let text: [UInt8]
    do {
      text = try format.serialize(document.root)
    } catch {
      // The writer stops at 512 levels, where the parser's own limit also lies.
      check(error.code == .nestingTooDeep, "TOML serialize of a parsed tree failed: \(error)")
      return
    }
    let reread = FormatTargets.expectSuccess("TOML re-parse of\n\(String(decoding: text, as: UTF8.self))") {
      () throws(StrataError) in try format.parse(text, path: "/fuzz/again.toml", options: ParseOptions())
    }
    check(
      TreeComparison(ignoresTableOrder: true, dateTolerance: 1e-6).same(document.root, reread.root),
      "TOML round trip changed \(TreeComparison.describe(document.root)) "
        + "into \(TreeComparison.describe(reread.root))\nvia\n\(String(decoding: text, as: UTF8.self))")
  }
}
