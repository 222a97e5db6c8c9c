import Testing

@testable import Strata

/// The parser's fast paths (word-at-a-time comment search, hashed key comparison, tables that switch
/// to a dictionary index) must give exactly what the plain byte-by-byte rules give.
@Suite("INI fast paths")
struct INIFastPathTests {
  let ini = INIFormat()

  @Test("an inline comment is found at every offset within and across 8-byte words")
  func commentAtEveryOffset() throws {
    for length in 0..<24 {
      let text = String(repeating: "x", count: length)
      for marker in ["#", ";"] {
        let doc = try parse("k = \(text) \(marker) note\n", as: ini)
        #expect(iniString(doc, "k") == (length == 0 ? "" : text), "length \(length), \(marker)")
        // Not after whitespace: part of the value (unless the value starts with it, after the
        // delimiter's space).
        let glued = try parse("k = \(text)\(marker)\(text)\n", as: ini)
        #expect(
          iniString(glued, "k") == (length == 0 ? "" : text + marker + text),
          "length \(length), \(marker) glued")
      }
    }
  }

  @Test("a comment marker right after a word of plain bytes, and non-ASCII bytes before it")
  func commentAfterWordsAndMultibyte() throws {
    let doc = try parse("a = 12345678 #c\nb = ééééé ;c\nc = 1234567;8 # end\n", as: ini)
    #expect(iniString(doc, "a") == "12345678")
    #expect(iniString(doc, "b") == "ééééé")
    #expect(iniString(doc, "c") == "1234567;8")
  }

  @Test("duplicate keys are found whatever their hash, including non-ASCII and equivalent spellings")
  func duplicatesFound() throws {
    let precomposed = "caf\u{E9}"
    let decomposed = "cafe\u{301}"
    let text = "[s]\nport = 1\nhost = a\nport = 2\n\(precomposed) = x\n\(decomposed) = y\n"
    let doc = try parse(text, as: ini)
    #expect(iniString(doc, "s.port") == "2")
    #expect(doc.root.value(at: "s")?.table?.keys == ["port", "host", precomposed])
    #expect(doc.root.value(atComponents: ["s", precomposed]).map { $0.kind } == .string("y"))
    #expect(doc.diagnostics.count == 2)
    #expect(doc.diagnostics.allSatisfy { $0.error.code == .duplicateKey })
  }

  @Test("a section past the linear-search limit keeps order, finds duplicates and merges re-entries")
  func largeSections() throws {
    let count = SettingTable.linearLimit * 3
    var text = "[big]\n"
    for i in 0..<count { text += "key\(i) = \(i)\n" }
    text += "key7 = again\n[other]\nx = 1\n[big]\nkey\(count) = last\nkey0 = zero\n"
    let doc = try parse(text, as: ini)
    let big = try #require(doc.root.value(at: "big")?.table)
    #expect(big.count == count + 1)
    #expect(big.keys.first == "key0")
    #expect(big.keys.last == "key\(count)")
    #expect(iniString(doc, "big.key7") == "again")
    #expect(iniString(doc, "big.key0") == "zero")
    #expect(iniString(doc, "big.key\(count - 1)") == "\(count - 1)")
    #expect(doc.diagnostics.count == 2)
  }

  @Test("arrays and plain values on the same key: last wins, with a warning, either way round")
  func arraysAndValuesMix() throws {
    let doc = try parse("a[] = 1\na[] = 2\na = 3\nb = 1\nb[] = 2\nb[] = 3\n", as: ini)
    #expect(iniString(doc, "a") == "3")
    #expect(
      doc.root.value(at: "b")?.kind
        == .array([
          SettingValue(.string("2"), origin: .codeDefault), SettingValue(.string("3"), origin: .codeDefault),
        ]))
    #expect(doc.diagnostics.count == 2)
  }

  @Test("a table with many keys: the index and the order survive removals")
  func settingTableIndex() {
    var table = SettingTable()
    let count = SettingTable.linearLimit * 2
    for i in 0..<count { table["k\(i)"] = SettingValue(.integer(i), origin: .codeDefault) }
    table["k3"] = nil
    table["k\(count - 1)"] = nil
    #expect(table.count == count - 2)
    #expect(table["k3"] == nil)
    #expect(table["k4"]?.kind == .integer(4))
    #expect(table.keys.first(where: { $0 == "k3" }) == nil)
    #expect(table.position(ofKey: "k4") == 3)
    table["k3"] = SettingValue(.integer(33), origin: .codeDefault)
    #expect(table.keys.last == "k3")
    #expect(table["k3"]?.kind == .integer(33))
  }
}
