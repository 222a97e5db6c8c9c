/// The dotenv target: every input gives a document or a ``StrataError``; a document serializes (every
/// name the parser produces can be written), reads back as the same tree, and an in-place edit of its
/// first key changes that key and nothing else.
enum DotEnvTarget {
  static func run(_ bytes: [UInt8]) {
    let format = DotEnvFormat()
    let document: Document
    do {
      document = try format.parse(bytes, path: "/fuzz/input.env", options: ParseOptions())
    } catch {
      _ = error.description
      return
    }
    let text = FormatTargets.expectSuccess("dotenv serialize of \(TreeComparison.describe(document.root))") {
      () throws(StrataError) in try format.serialize(document.root)
    }
    let reread = FormatTargets.expectSuccess("dotenv re-parse of\n\(String(decoding: text, as: UTF8.self))") {
      () throws(StrataError) in try format.parse(text, path: "/fuzz/again.env", options: ParseOptions())
    }
    check(
      TreeComparison().same(document.root, reread.root),
      "dotenv round trip changed \(TreeComparison.describe(document.root)) "
        + "into \(TreeComparison.describe(reread.root))\nvia\n\(String(decoding: text, as: UTF8.self))")
    check(reread.diagnostics.isEmpty, "the serializer wrote a key twice: \(reread.diagnostics)")

    var firstKey: String?
    document.root.forEachLeaf { key, _ in if firstKey == nil { firstKey = key } }
    guard let key = firstKey else { return }
    let value = SettingValue(.string("e d\"i't #x"), origin: .runtime)
    let edited = FormatTargets.expectSuccess("dotenv edit of \(key)") { () throws(StrataError) in
      try format.edit(bytes, setting: value, at: key, path: "/fuzz/input.env", options: ParseOptions())
    }
    let after = FormatTargets.expectSuccess("dotenv parse after editing \(key)") { () throws(StrataError) in
      try format.parse(edited, path: "/fuzz/input.env", options: ParseOptions())
    }
    var expected = document.root
    expected.set(value, at: key)
    check(
      TreeComparison(ignoresTableOrder: true).same(expected, after.root),
      "editing \(key) changed more than it: \(TreeComparison.describe(after.root))")
  }
}
