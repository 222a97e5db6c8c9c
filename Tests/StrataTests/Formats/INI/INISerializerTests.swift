import Foundation
import Testing

@testable import Strata

private func v(_ kind: SettingValue.Kind) -> SettingValue { SettingValue(kind, origin: .runtime) }
private func s(_ text: String) -> SettingValue { v(.string(text)) }
private func table(_ entries: [(String, SettingValue)]) -> SettingValue { v(.table(SettingTable(entries))) }

/// The tree with every scalar turned into the text INI writes for it.
private func stringified(_ value: SettingValue) -> SettingValue {
  switch value.kind {
  case .table(let t): return table(t.map { ($0.key, stringified($0.value)) })
  case .array(let items): return v(.array(items.map(stringified)))
  default: return s(INISerializer.text(of: value))
  }
}

@Suite("INI serializer")
struct INISerializerTests {
  let ini = INIFormat()

  func text(_ value: SettingValue) throws -> String {
    String(decoding: try ini.serialize(value), as: UTF8.self)
  }

  @Test func layout() throws {
    let tree = table([
      ("name", s("demo")),
      ("server", table([("port", v(.integer(8080))), ("tls", table([("on", v(.bool(true)))]))])),
      ("remote", table([("origin", table([("url", s("git@h:x.git"))]))])),
      ("tags", v(.array([s("a"), s("b")]))),
      ("empty", table([])),
    ])
    let expected = """
      name = demo
      tags[] = a
      tags[] = b

      [server]
      port = 8080

      [server.tls]
      on = true

      [remote.origin]
      url = git@h:x.git

      [empty]

      """
    #expect(try text(tree) == expected)
  }

  @Test func quotingOnlyWhenNeeded() throws {
    let cases: [(String, String)] = [
      ("plain value", "plain value"), ("", "\"\""), (" lead", "\" lead\""), ("trail ", "\"trail \""),
      ("a # b", "\"a # b\""), ("a;b", "\"a;b\""), ("say \"hi\"", "\"say \\\"hi\\\"\""), ("it's", "\"it's\""),
      ("C:\\dir\\", "\"C:\\\\dir\\\\\""), ("two\nlines", "\"two\\nlines\""), ("tab\tin", "tab\tin"),
      ("bell\u{7}", "\"bell\\u0007\""), ("ünïcödé = ok", "ünïcödé = ok"), ("url: x=y", "url: x=y"),
    ]
    for (value, written) in cases {
      #expect(try text(table([("k", s(value))])) == "k = \(written)\n", "\(value.debugDescription)")
    }
  }

  @Test func namesAreQuotedWhenTheyWouldNotReadBack() throws {
    let tree = table([
      ("a.b", s("1")), ("with space", s("2")), ("", s("3")), ("x[]", s("4")), ("!bang", s("5")),
      ("sec.tion", table([("k", s("6"))])),
    ])
    #expect(
      try text(tree) == """
        "a.b" = 1
        "with space" = 2
        "" = 3
        "x[]" = 4
        "!bang" = 5

        ["sec.tion"]
        k = 6

        """)
  }

  /// Found by fuzzing: the flag line ` \u{FEFF}` is the key U+FEFF, which written bare at the start
  /// of a file read back as a byte order mark followed by `= true`.
  @Test func aKeyStartingWithU_FEFFIsQuoted() throws {
    let parsed = try ini.parse([0x20, 0xEF, 0xBB, 0xBF], path: "bom.ini", options: ParseOptions()).root
    #expect(parsed == table([("\u{FEFF}", s("true"))]))
    #expect(try text(parsed) == "\"\u{FEFF}\" = true\n")
    let tree = table([("\u{FEFF}a", s("1")), ("b\u{FEFF}", s("2"))])
    #expect(try text(tree) == "\"\u{FEFF}a\" = 1\nb\u{FEFF} = 2\n")
    #expect(try ini.parse(ini.serialize(parsed), path: "again.ini", options: ParseOptions()).root == parsed)
    #expect(try ini.parse(ini.serialize(tree), path: "again.ini", options: ParseOptions()).root == tree)
  }

  @Test func nonStringsAsText() throws {
    let date = Date(timeIntervalSince1970: 1_700_000_000)
    let tree = table([
      ("i", v(.integer(-42))), ("d", v(.double(2.5))), ("b", v(.bool(false))), ("t", v(.date(date))),
      ("bytes", v(.data(Data([0, 1, 2, 250])))),
    ])
    #expect(try text(tree) == "i = -42\nd = 2.5\nb = false\nt = 2023-11-14T22:13:20Z\nbytes = AAEC+g==\n")
  }

  @Test func whatINICannotExpress() {
    func failure(_ value: SettingValue) -> String? {
      do {
        _ = try ini.serialize(value)
        return nil
      } catch { return "\(error.code): \(error.message)" }
    }
    #expect(
      failure(table([("a", table([("b", v(.array([table([])])))]))]))
        == "typeMismatch: INI cannot represent an array of tables at a.b")
    #expect(
      failure(table([("n", v(.array([v(.array([]))])))]))
        == "typeMismatch: INI cannot represent nested arrays at n")
    #expect(
      failure(table([("e", v(.array([])))])) == "typeMismatch: INI cannot represent an empty array at e")
    #expect(failure(s("x")) == "typeMismatch: INI needs a table at the top, not a string")
  }

  @Test func roundTripsEveryKind() throws {
    let tree = table([
      ("string", s("hello world")),
      ("tricky", s(" #;\"'\\\n\t\r\u{1} é 😀 ")),
      ("empty", s("")),
      ("integer", v(.integer(Int.min))),
      ("double", v(.double(-0.125))),
      ("bool", v(.bool(true))),
      ("date", v(.date(Date(timeIntervalSince1970: 86_400)))),
      ("data", v(.data(Data("bytes".utf8)))),
      ("array", v(.array([s("x"), v(.integer(1)), s(""), s("a # b")]))),
      ("dotted.key", s("kept whole")),
      (
        "section",
        table([
          ("key with spaces", s("v")),
          ("list", v(.array([s("only")]))),
          ("nested", table([("deep", table([("leaf", v(.bool(false)))]))])),
        ])
      ),
      ("remote", table([("origin", table([("url", s("https://example.org/x.git"))]))])),
      ("weird \"name\"", table([("[x]", s("y"))])),
      ("empty table", table([])),
    ])
    let bytes = try ini.serialize(tree)
    let parsed = try ini.parse(bytes, path: "round-trip.ini", options: ParseOptions())
    #expect(parsed.root == stringified(tree), "\(String(decoding: bytes, as: UTF8.self))")
    #expect(parsed.diagnostics.isEmpty)
    // Serializing the parsed tree again gives the same bytes.
    #expect(try ini.serialize(parsed.root) == bytes)
  }
}
