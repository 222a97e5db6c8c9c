import Testing

@testable import Strata

@Suite struct DotEnvSerializerTests {
  func serialized(_ value: SettingValue) throws -> String {
    String(decoding: try DotEnvFormat().serialize(value), as: UTF8.self)
  }

  func table(_ entries: [(String, SettingValue.Kind)]) -> SettingValue {
    SettingValue(
      .table(SettingTable(entries.map { ($0.0, SettingValue($0.1, origin: .runtime)) })), origin: .runtime)
  }

  @Test func scalarsAreWrittenOneLineEachWithNamesJoinedByDots() throws {
    let tree = table([
      ("port", .integer(8080)), ("debug", .bool(true)),
      ("server", .table(SettingTable([("max_conn", SettingValue(.string("5"), origin: .runtime))]))),
    ])
    #expect(try serialized(tree) == "port=8080\ndebug=true\nserver.max_conn=5\n")
  }

  @Test func valuesAreQuotedOnlyWhenTheyMustBe() throws {
    let cases: [(String, String)] = [
      ("plain", "plain"), ("", ""), ("a b", "a b"), ("a#b", "a#b"), ("a #b", "'a #b'"), (" x", "' x'"),
      ("'q", "\"'q\""), ("#x", "'#x'"), ("${HOME}", "${HOME}"), ("it's \"x\"", "it's \"x\""),
      ("l1\nl2", "\"l1\\nl2\""), ("tab\there's", "\"tab\\there's\""), ("back\\slash", "back\\slash"),
    ]
    for (value, written) in cases {
      #expect(try serialized(table([("k", .string(value))])) == "k=\(written)\n", "\(value)")
    }
  }

  @Test func serializeThenParseGivesTheSameStrings() throws {
    let values = [
      "a b", " lead", "trail ", "#", "x #y", "'", "\"", "\\", "\\n", "l1\r\nl2", "\u{1}", "ü€𝄞", "$X",
    ]
    let tree = table(values.enumerated().map { ("k\($0.offset)", .string($0.element)) })
    let reread = try DotEnvFormat().parse(
      try DotEnvFormat().serialize(tree), path: "x", options: ParseOptions())
    for (index, value) in values.enumerated() {
      #expect(dotEnvString(reread, "k\(index)") == value, "\(value.debugDescription)")
    }
  }

  @Test func whatDotenvCannotHoldIsRefused() {
    #expect(throws: StrataError.self) { try serialized(table([("k", .array([]))])) }
    #expect(throws: StrataError.self) { try serialized(table([("ABC", .string("x"))])) }
    #expect(throws: StrataError.self) { try serialized(table([("a b", .string("x"))])) }
    #expect(throws: StrataError.self) { try serialized(table([("k", .string("a\u{0}b"))])) }
    #expect(throws: StrataError.self) { try serialized(SettingValue(.string("x"), origin: .runtime)) }
  }
}
