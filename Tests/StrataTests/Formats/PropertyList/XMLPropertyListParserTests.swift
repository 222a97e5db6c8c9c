import Foundation
import Testing

@testable import Strata

private let format = PropertyListFormat()

/// Wraps dict content in Apple's header, so the content starts on line 5, column 1.
private func plist(_ body: String) -> String {
  """
  <?xml version="1.0" encoding="UTF-8"?>
  <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
  <plist version="1.0">
  <dict>
  \(body)
  </dict>
  </plist>

  """
}

@Suite struct XMLPropertyListParserTests {
  @Test func readsEveryTypeWithPositions() throws {
    let document = try parse(
      plist(
        """
        \t<key>name</key>
        \t<string>demo</string>
        \t<key>port</key> <integer>8080</integer>
        \t<key>ratio</key><real>0.25</real>
        \t<key>on</key><true/>
        \t<key>off</key><false></false>
        \t<key>when</key><date>2024-01-02T03:04:05Z</date>
        \t<key>blob</key><data>
        \tAAEC
        \tAw==
        \t</data>
        \t<key>list</key>
        \t<array>
        \t\t<integer>1</integer>
        \t\t<dict/>
        \t\t<array/>
        \t\t<string/>
        \t</array>
        """), as: format, path: "/etc/demo.plist")
    let root = document.root
    #expect(position(root) == "4:1")
    #expect(root.value(at: "name")?.kind == .string("demo"))
    #expect(position(root.value(at: "name")) == "6:2")
    #expect(root.value(at: "port")?.kind == .integer(8080))
    #expect(position(root.value(at: "port")) == "7:18")
    #expect(root.value(at: "ratio")?.kind == .double(0.25))
    #expect(root.value(at: "on")?.kind == .bool(true))
    #expect(root.value(at: "off")?.kind == .bool(false))
    #expect(root.value(at: "when")?.kind == .date(Date(timeIntervalSince1970: 1_704_164_645)))
    #expect(root.value(at: "blob")?.kind == .data(Data([0, 1, 2, 3])))
    guard case .array(let list)? = root.value(at: "list")?.kind else {
      Issue.record("list is not an array")
      return
    }
    #expect(list.map(\.kind) == [.integer(1), .table(SettingTable()), .array([]), .string("")])
    #expect(position(list[1]) == "19:3")
    #expect(root.table?.keys == ["name", "port", "ratio", "on", "off", "when", "blob", "list"])
    #expect(document.diagnostics.isEmpty)
  }

  @Test func decodesEntitiesCDATAAndComments() throws {
    let root = try parse(
      plist(
        """
        <key>a&amp;b</key><string>&lt;&gt;&amp;&quot;&apos;&#65;&#x1F600;</string>
        <key>c</key><string><![CDATA[<raw & text>]]> and <!-- hidden -->more</string>
        <!-- a comment between entries -->
        <key>crlf</key><string>x\r\ny\rz</string>
        <key>space</key><string>  keep  </string>
        <key>é</key><string>ünïcødé 😀</string>
        """), as: format
    ).root
    #expect(root.table?["a&b"]?.kind == .string("<>&\"'A😀"))
    #expect(root.table?["c"]?.kind == .string("<raw & text> and more"))
    #expect(root.table?["crlf"]?.kind == .string("x\ny\nz"))
    #expect(root.table?["space"]?.kind == .string("  keep  "))
    #expect(root.table?["é"]?.kind == .string("ünïcødé 😀"))
  }

  @Test func readsNumbers() throws {
    let root = try parse(
      plist(
        """
        <key>hex</key><integer>0x1F</integer>
        <key>neg</key><integer>-42</integer>
        <key>max</key><integer>9223372036854775807</integer>
        <key>min</key><integer>-9223372036854775808</integer>
        <key>padded</key><integer> 7 </integer>
        <key>nan</key><real>nan</real>
        <key>inf</key><real>inf</real>
        <key>ninf</key><real>-inf</real>
        <key>big</key><real>1e300</real>
        <key>int</key><real>3</real>
        """), as: format
    ).root
    #expect(root.table?["hex"]?.kind == .integer(31))
    #expect(root.table?["neg"]?.kind == .integer(-42))
    #expect(root.table?["max"]?.kind == .integer(Int.max))
    #expect(root.table?["min"]?.kind == .integer(Int.min))
    #expect(root.table?["padded"]?.kind == .integer(7))
    guard case .double(let nan)? = root.table?["nan"]?.kind else { return #expect(Bool(false)) }
    #expect(nan.isNaN)
    #expect(root.table?["inf"]?.kind == .double(.infinity))
    #expect(root.table?["ninf"]?.kind == .double(-.infinity))
    #expect(root.table?["big"]?.kind == .double(1e300))
    #expect(root.table?["int"]?.kind == .double(3))
  }

  @Test func decodesBase64VariantsAndInternalDoctypes() throws {
    let root = try parse(
      "<!DOCTYPE plist [ <!ELEMENT plist ANY> <!ENTITY x \"]>\"> ]>\n<plist><dict>"
        + "<key>a</key><data>AAA=</data><key>b</key><data>AAE</data>"
        + "<key>c</key><data> A A E C \n Aw== </data><key>d</key><data>AA==</data></dict></plist>", as: format
    ).root
    #expect(root.table?["a"]?.kind == .data(Data([0, 0])))
    #expect(root.table?["b"]?.kind == .data(Data([0, 1])))
    #expect(root.table?["c"]?.kind == .data(Data([0, 1, 2, 3])))
    #expect(root.table?["d"]?.kind == .data(Data([0])))
  }

  @Test func acceptsABareDictAndABOM() throws {
    let document = try parse(
      "\u{FEFF}<dict><key>a</key><integer>1</integer></dict>\n<!-- end -->\n", as: format)
    #expect(document.root.table?["a"]?.kind == .integer(1))
    #expect(position(document.root) == "1:4")
  }

  @Test func duplicateKeysKeepTheLastValueAndWarn() throws {
    let document = try parse(
      plist("<key>a</key><integer>1</integer>\n<key>b</key><true/>\n<key>a</key><integer>2</integer>"),
      as: format)
    #expect(document.root.table?.keys == ["a", "b"])
    #expect(document.root.table?["a"]?.kind == .integer(2))
    #expect(document.diagnostics.count == 1)
    let warning = try #require(document.diagnostics.first)
    #expect(warning.severity == .warning)
    #expect(warning.error.code == .duplicateKey)
    #expect(position(warning.error) == "7:1")
  }

  @Test(arguments: [
    // (input, code, line, column)
    (plist("<key>a</key><foo/>"), StrataError.Code.invalidPropertyList, 5, 13),
    (plist("<key>a</key><array></dict>"), .syntax, 5, 20),
    (plist("<key>a</key>"), .invalidPropertyList, 5, 1),
    (plist("<key>a</key>\n<key>b</key><true/>"), .invalidPropertyList, 5, 1),
    (plist("<integer>1</integer>"), .invalidPropertyList, 5, 1),
    (plist("<key>a</key><string>x</strin>"), .syntax, 5, 22),
    (plist("<key>a</key><string>abc"), .syntax, 6, 1),
    ("<plist><dict>\n  <key>a</key><string>abc", .unexpectedEnd, 2, 15),
    ("<plist><dict>\n  <key>a</key>\n  <array>\n", .unexpectedEnd, 3, 3),
    ("<plist><dict>\n<!-- never closed", .unexpectedEnd, 2, 1),
    (plist("<key>a</key><string>&bogus;</string>"), .syntax, 5, 21),
    (plist("<key>a</key><string>&#xD800;</string>"), .syntax, 5, 21),
    (plist("<key>a</key><string>a & b</string>"), .syntax, 5, 23),
    (plist("<key>a</key><string>&#+65;</string>"), .syntax, 5, 21),
    (plist("<key>a</key><string>x<![CDATA[never closed</string>"), .unexpectedEnd, 5, 22),
    (plist("<key>a</key><integer>12x</integer>"), .invalidNumber, 5, 24),
    (plist("<key>a</key><integer>18446744073709551616</integer>"), .invalidNumber, 5, 22),
    (plist("<key>a</key><integer>-9223372036854775809</integer>"), .invalidNumber, 5, 22),
    (plist("<key>a</key><integer>0x10000000000000000</integer>"), .invalidNumber, 5, 22),
    (plist("<key>a</key><integer></integer>"), .invalidNumber, 5, 22),
    (plist("<key>a</key><real>1.2.3</real>"), .invalidNumber, 5, 19),
    (plist("<key>a</key><date>2024-13-01T00:00:00Z</date>"), .invalidPropertyList, 5, 19),
    (plist("<key>a</key><date>2024-01-01 00:00:00</date>"), .invalidPropertyList, 5, 19),
    (plist("<key>a</key><data>AAE*</data>"), .invalidPropertyList, 5, 22),
    (plist("<key>a</key><data>AAECA</data>"), .invalidPropertyList, 5, 19),
    (plist("stray <key>a</key><true/>"), .syntax, 5, 1),
    ("<plist>x<dict/></plist>", .syntax, 1, 8),
    ("hello", .syntax, 1, 1),
    ("<plist><dict/></plist>\n<dict/>", .syntax, 2, 1),
    ("<plist><dict/></plist> junk", .syntax, 1, 24),
    ("<plist><dict/><dict/></plist>", .invalidPropertyList, 1, 15),
    ("<plist><array/></plist>", .syntax, 1, 8),
    ("<plist>\n  <string>x</string>\n</plist>", .syntax, 2, 3),
    ("<plist></plist>", .syntax, 1, 8),
    ("<plist/>", .syntax, 1, 1),
    ("", .unexpectedEnd, 1, 1),
    ("<plist><dict><key>a</key><true>x</true></dict></plist>", .syntax, 1, 32),
    ("<plist><array><key>a</key></array></plist>", .invalidPropertyList, 1, 15),
    ("<plist><dict", .unexpectedEnd, 1, 8),
    ("<plist><![CDATA[x]]><dict/></plist>", .syntax, 1, 8),
    ("<plist><dict><key>a</key><plist/></dict></plist>", .invalidPropertyList, 1, 26),
    (plist("<key>a</key><integer/>"), .invalidPropertyList, 5, 13),
    ("<!DOCTYPE plist [ <!ELEMENT x>", .unexpectedEnd, 1, 1),
    ("<plist <dict/>", .syntax, 1, 8),
    (plist("<key>a</key><true></false>"), .syntax, 5, 19),
    (plist("<key>a</key><string>a<b/></string>"), .syntax, 5, 22),
    (plist("<key>a</key><data>A===</data>"), .invalidPropertyList, 5, 20),
    (plist("<key>a</key><data>AA=A</data>"), .invalidPropertyList, 5, 22),
    (plist("<key>a</key><data>AAA==</data>"), .invalidPropertyList, 5, 19),
  ])
  func reportsErrorsWithPositions(input: String, code: StrataError.Code, line: Int, column: Int) throws {
    let error = try #require(parseError(input, as: format, path: "bad.plist"))
    #expect(error.code == code, "\(error)")
    #expect(position(error) == "\(line):\(column)", "\(error)")
    #expect(error.path == "bad.plist")
  }

  @Test func rejectsInvalidUTF8() throws {
    var bytes = Array(plist("<key>a</key><string>Q</string>").utf8)
    let x = try #require(bytes.firstIndex(of: UInt8(ascii: "Q")))
    bytes[x] = 0xFF
    #expect(throws: StrataError.self) { try format.parse(bytes, path: "p", options: ParseOptions()) }
    do {
      _ = try format.parse(bytes, path: "p", options: ParseOptions())
    } catch {
      #expect(error.code == .invalidUTF8)
      #expect(position(error) == "5:21")
    }
  }

  @Test func parsesDeepInputOnASmallStack() async {
    let depth = 100_000
    let deep =
      "<plist><dict><key>a</key>" + String(repeating: "<array>", count: depth)
      + String(repeating: "</array>", count: depth) + "</dict></plist>"
    // On a thread of its own with a 64 KiB stack, awaited: a recursive parser would overflow it.
    let code = await onOwnThread(stackSize: 64 << 10) { parseError(deep, as: format)?.code }
    #expect(code == .nestingTooDeep)
  }

  @Test func capsNestingWithoutOverflowingTheStack() throws {
    let depth = 100_000
    let deep =
      "<plist><dict><key>a</key>" + String(repeating: "<array>", count: depth)
      + String(repeating: "</array>", count: depth) + "</dict></plist>"
    let error = try #require(parseError(deep, as: format))
    #expect(error.code == .nestingTooDeep)
    #expect(position(error) == "1:\(26 + 511 * 7)")
    // Exactly the limit is fine: the top dict and 511 arrays.
    let fits =
      "<plist><dict><key>a</key>" + String(repeating: "<array>", count: 510) + "<array/>"
      + String(repeating: "</array>", count: 510) + "</dict></plist>"
    #expect(try parse(fits, as: format).root.isTable)
    #expect(throws: StrataError.self) {
      try format.parse(Array(fits.utf8), path: "p", options: ParseOptions(maxDepth: 3))
    }
  }

  @Test func survivesEveryTruncationAndByteChange() async throws {
    let sample = try parse(
      plist(
        """
        <key>name</key><string>a &amp; b <![CDATA[<c>]]> ünï 😀</string>
        <key>n</key><integer>-0x1F</integer><key>r</key><real>1e300</real>
        <key>d</key><date>2024-01-02T03:04:05Z</date><key>b</key><data>AAEC\nAw==</data>
        <!-- note --><key>l</key><array><true/><false></false><dict/><string/></array>
        """), as: format)
    let good = try format.serialize(sample.root) + Array("<!-- x -->".utf8)
    let format = format
    // Thousands of parses in a debug build: on a thread of its own, not the cooperative pool's.
    let outcomes = await onOwnThread {
      var outcomes = 0
      func attempt(_ bytes: [UInt8]) {
        _ = try? format.parse(bytes, path: "f", options: ParseOptions())
        outcomes += 1
      }
      for length in 0..<good.count { attempt(Array(good[0..<length])) }
      for position in 0..<good.count {
        for replacement in Array("<>&/!?-\"=;#x]".utf8) + [0, 0xFF, 0xC3] {
          var bytes = good
          bytes[position] = replacement
          attempt(bytes)
        }
      }
      return outcomes
    }
    #expect(outcomes == good.count * 17)
  }
}
