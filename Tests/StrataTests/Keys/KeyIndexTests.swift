import Testing

@testable import Strata

/// The index of large tables: open addressing over key hashes, bounded by a fallback to a dictionary.
@Suite struct KeyIndexTests {
  @Test func findsEveryKeyOfALargeTableAndNoOther() {
    let keys = (0..<5_000).map { "key\($0)" }
    let index = KeyIndex(keys)
    for (position, key) in keys.enumerated() {
      #expect(index.position(of: key, hash: KeyHash.of(key)) { keys[$0] } == position)
    }
    #expect(index.position(of: "key5000", hash: KeyHash.of("key5000")) { keys[$0] } == nil)
  }

  @Test func keysThatAllCollideTurnTheIndexIntoADictionaryAndStillFindEachKey() {
    // Non-ASCII keys all hash to 0: one chain, longer than the bound.
    let keys = (0..<(KeyIndex.maximumProbe * 4)).map { "é\($0)" }
    var index = KeyIndex(capacity: 8)
    for (position, key) in keys.enumerated() {
      index.insert(key, hash: KeyHash.of(key), at: position, earlier: keys[..<position])
    }
    #expect(index.count == keys.count)
    for (position, key) in keys.enumerated() {
      #expect(index.position(of: key, hash: 0) { keys[$0] } == position)
    }
  }

  @Test func canonicallyEquivalentSpellingsAreOneKey() {
    var table = SettingTable()
    for n in 0..<40 { table["k\(n)"] = SettingValue(.integer(n), origin: .runtime) }
    table["caf\u{E9}"] = SettingValue(.integer(1), origin: .runtime)  // precomposed
    #expect(table["cafe\u{301}"]?.kind == .integer(1))  // decomposed
    table["cafe\u{301}"] = SettingValue(.integer(2), origin: .runtime)
    #expect(table.count == 41)
    #expect(table["caf\u{E9}"]?.kind == .integer(2))
  }

  @Test func aLargeTableKeepsItsIndexThroughRemovalsAndAdditions() {
    var table = SettingTable()
    for n in 0..<100 { table["k\(n)"] = SettingValue(.integer(n), origin: .runtime) }
    for n in stride(from: 0, to: 100, by: 3) { table["k\(n)"] = nil }
    table["new"] = SettingValue(.integer(-1), origin: .runtime)
    for n in 0..<100 {
      #expect(table["k\(n)"]?.kind == (n % 3 == 0 ? nil : .integer(n)), "k\(n)")
    }
    #expect(table["new"]?.kind == .integer(-1))
    #expect(table.keys.last == "new")
  }

  @Test func aParsedTableOfCollidingKeysLoadsWhole() throws {
    // 300 non-ASCII keys in one JSON object: the parser's index falls back to a dictionary.
    let text = "{" + (0..<300).map { #""ключ\#($0)": \#($0)"# }.joined(separator: ", ") + "}"
    let document = try parse(text, as: JSONFormat())
    let table = try #require(document.root.table)
    #expect(table.count == 300)
    #expect(table["ключ299"]?.kind == .integer(299))
  }
}
