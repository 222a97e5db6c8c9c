import Testing

@testable import Strata

/// Keys are `String`s: canonically equivalent spellings are one key in every format and at every table
/// size, as they are in INI and in code (`"K" == "\u{212A}"`, the Kelvin sign).
@Suite struct CanonicalKeyTests {
  /// `count` ASCII keys `f0`, `f1`, … as JSON members, to push a table past its linear size.
  private func filler(_ count: Int) -> String {
    (0..<count).map { "\"f\($0)\": 0, " }.joined()
  }

  @Test(arguments: [0, 40])
  func theKelvinSignAndKAreOneJSONKey(fillerKeys: Int) throws {
    for (first, second) in [("K", "\u{212A}"), ("\u{212A}", "K")] {
      let document = try parse(
        "{" + filler(fillerKeys) + "\"\(first)\": 1, \"\(second)\": 2}", as: JSONFormat())
      let table = try #require(document.root.table)
      #expect(table.count == fillerKeys + 1)
      #expect(table["K"]?.kind == .integer(2))
      #expect(table["\u{212A}"]?.kind == .integer(2))
      #expect(document.diagnostics.map(\.error.code) == [.duplicateKey])
    }
  }

  @Test func precomposedAndDecomposedAreOneXMLPlistKey() throws {
    let plist = """
      <?xml version="1.0" encoding="UTF-8"?>
      <plist version="1.0"><dict>
      \((0..<40).map { "<key>f\($0)</key><integer>0</integer>" }.joined())
      <key>caf\u{E9}</key><integer>1</integer>
      <key>cafe\u{301}</key><integer>2</integer>
      </dict></plist>
      """
    let document = try parse(plist, as: PropertyListFormat(), path: "t.plist")
    let table = try #require(document.root.table)
    #expect(table.count == 41)
    #expect(table["caf\u{E9}"]?.kind == .integer(2))
    #expect(document.diagnostics.map(\.error.code) == [.duplicateKey])
  }

  @Test func aLargeTableFindsAnEquivalentSpellingEitherWay() {
    var ascii = SettingTable()
    for index in 0..<40 { ascii["f\(index)"] = SettingValue(.integer(index), origin: .runtime) }
    ascii["K"] = SettingValue(.integer(-1), origin: .runtime)
    #expect(ascii["\u{212A}"]?.kind == .integer(-1))
    ascii["\u{212A}"] = SettingValue(.integer(-2), origin: .runtime)
    #expect(ascii.count == 41)
    #expect(ascii["K"]?.kind == .integer(-2))
    #expect(ascii.keys.last == "K")  // the first spelling keeps its place
  }
}
