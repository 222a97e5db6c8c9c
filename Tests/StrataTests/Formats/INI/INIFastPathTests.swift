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

  @Test(
    "sections of changing sizes (each table starts with the room the one before needed) keep every key and position"
  )
  func sectionsOfChangingSizes() throws {
    let sizes = [0, 1, 300, 2, 20, 20, 21, 257, 3]
    var text = "top = 0\n"
    var expected: [(key: String, value: String, position: String)] = [("top", "0", "1:7")]
    var line = 1
    for (section, size) in sizes.enumerated() {
      text += "[s\(section)]\n"
      line += 1
      for key in 0..<size {
        text += "key\(key)   =  v\(section)-\(key)\n"
        line += 1
        expected.append(("s\(section).key\(key)", "v\(section)-\(key)", "\(line):\(10 + String(key).count)"))
      }
    }
    let doc = try parse(text, as: ini)
    for entry in expected {
      #expect(iniString(doc, entry.key) == entry.value, "\(entry.key)")
      #expect(iniPosition(doc, entry.key) == entry.position, "\(entry.key)")
    }
    for (section, size) in sizes.enumerated() {
      #expect(doc.root.value(at: "s\(section)")?.table?.keys == (0..<size).map { "key\($0)" })
    }
    #expect(doc.root.table?.keys == ["top"] + sizes.indices.map { "s\($0)" })
  }

  @Test("child tables among values, by dotted keys and headers, keep their places and origins")
  func childTablesAmongValues() throws {
    let text = """
      [a]
      x = 1
      b.c = 2
      y = 3
      d.e.f = 4
      b.g = 5
      [a.h]
      i = 6
      [a]
      z = 7
      listen.owner = www
      listen = 9

      """
    let doc = try parse(text, as: ini)
    let a = try #require(doc.root.value(at: "a")?.table)
    #expect(a.keys == ["x", "b", "y", "d", "h", "z", "listen", "listen.owner"])
    #expect(iniString(doc, "a.b.c") == "2")
    #expect(iniString(doc, "a.b.g") == "5")
    #expect(iniString(doc, "a.d.e.f") == "4")
    #expect(iniString(doc, "a.h.i") == "6")
    #expect(iniString(doc, "a.listen") == "9")
    #expect(doc.root.value(atComponents: ["a", "listen.owner"])?.kind == .string("www"))
    #expect(iniPosition(doc, "a.b") == "3:1")
    #expect(iniPosition(doc, "a.h") == "7:1")
    #expect(iniPosition(doc, "a.z") == "10:5")
  }

  @Test(
    "past the linear limit, a non-ASCII key still finds its canonically equivalent spelling, either way round"
  )
  func equivalentSpellingsInLargeSections() throws {
    let filler = (0..<(SettingTable.linearLimit + 8)).map { "key\($0) = \($0)\n" }.joined()
    let kelvin = "\u{212A}"
    let precomposed = "caf\u{E9}"
    let decomposed = "cafe\u{301}"
    for (first, second) in [
      ("K", kelvin), (kelvin, "K"), (precomposed, decomposed), (decomposed, precomposed),
    ] {
      for text in [
        "[s]\n\(filler)\(first) = 1\n\(second) = 2\n", "[s]\n\(first) = 1\n\(filler)\(second) = 2\n",
        "[s]\n\(first) = 1\n\(filler)x = y\n\(second) = 2\n",
      ] {
        let doc = try parse(text, as: ini)
        let table = try #require(doc.root.value(at: "s")?.table)
        #expect(table.count == SettingTable.linearLimit + 9 + (text.contains("x = y") ? 1 : 0))
        #expect(
          table[first]?.kind == .string("2"),
          "\(first.unicodeScalars.map(\.value)) then \(second.unicodeScalars.map(\.value))")
        #expect(doc.diagnostics.map(\.error.code) == [.duplicateKey])
      }
    }
  }

  @Test("past the linear limit, a dotted table that gives way to a value keeps every name findable")
  func flatteningInLargeSections() throws {
    let filler = (0..<(SettingTable.linearLimit + 8)).map { "key\($0) = \($0)\n" }.joined()
    let text =
      "[s]\n\(filler)listen.owner = www\nlisten.group = web\nlisten = 9\nlisten.owner = nobody\nkey3 = 33\n"
    let doc = try parse(text, as: ini)
    let table = try #require(doc.root.value(at: "s")?.table)
    #expect(table.keys.suffix(3) == ["listen", "listen.owner", "listen.group"])
    #expect(table["listen"]?.kind == .string("9"))
    #expect(table["listen.owner"]?.kind == .string("nobody"))
    #expect(table["key3"]?.kind == .string("33"))
    #expect(doc.diagnostics.map(\.error.code) == [.duplicateKey, .duplicateKey])
  }
}
