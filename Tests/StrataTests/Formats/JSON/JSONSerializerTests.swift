import Foundation
import Testing

@testable import Strata

@Suite struct JSONSerializerTests {
  static func node(_ kind: SettingValue.Kind) -> SettingValue { SettingValue(kind, origin: .runtime) }
  static func table(_ entries: [(String, SettingValue.Kind)]) -> SettingValue {
    node(.table(SettingTable(entries.map { ($0.0, node($0.1)) })))
  }

  static func text(_ value: SettingValue) throws -> String {
    String(decoding: try JSONFormat().serialize(value), as: UTF8.self)
  }

  @Test func prettyPrintsWithTwoSpacesInTableOrder() throws {
    let tree = Self.table([
      ("name", .string("demo")), ("port", .integer(8080)), ("ratio", .double(0.5)), ("whole", .double(2)),
      ("on", .bool(true)), ("empty", .table(SettingTable())), ("list", .array([])),
      ("nested", Self.table([("items", .array([Self.node(.integer(1)), Self.node(.string("two"))]))]).kind),
    ])
    let expected = """
      {
        "name": "demo",
        "port": 8080,
        "ratio": 0.5,
        "whole": 2.0,
        "on": true,
        "empty": {},
        "list": [],
        "nested": {
          "items": [
            1,
            "two"
          ]
        }
      }

      """
    #expect(try Self.text(tree) == expected)
    #expect(try Self.text(Self.table([])) == "{}\n")
  }

  @Test func escapesStringsAndKeys() throws {
    let tree = Self.table([("k\"\n", .string("a\"b\\c\nd\te\r\u{8}\u{C}\u{1}\u{1F}/é😀"))])
    #expect(
      try Self.text(tree) == "{\n  \"k\\\"\\n\": \"a\\\"b\\\\c\\nd\\te\\r\\b\\f\\u0001\\u001F/é😀\"\n}\n")
  }

  @Test func datesAndDataBecomeStrings() throws {
    let tree = Self.table([
      ("at", .date(Date(timeIntervalSince1970: 1_704_164_645))), ("blob", .data(Data([0, 1, 2, 250, 255]))),
    ])
    #expect(try Self.text(tree) == "{\n  \"at\": \"2024-01-02T03:04:05Z\",\n  \"blob\": \"AAEC+v8=\"\n}\n")
  }

  @Test func nonFiniteDoublesAndNonTablesAreRefused() {
    for bad in [Double.infinity, -.infinity, .nan] {
      let error = #expect(throws: StrataError.self) {
        try JSONFormat().serialize(Self.table([("x", .double(bad))]))
      }
      #expect(error?.code == .invalidValue)
    }
    let error = #expect(throws: StrataError.self) { try JSONFormat().serialize(Self.node(.array([]))) }
    #expect(error?.code == .typeMismatch)
    #expect(error?.message == "a configuration file must hold a table at the top, found a array")
  }

  @Test func tooDeepTreesAreRefusedRatherThanOverflowingTheStack() {
    var value = Self.node(.array([]))
    for _ in 0..<600 { value = Self.node(.array([value])) }
    let error = #expect(throws: StrataError.self) {
      try JSONFormat().serialize(Self.table([("x", value.kind)]))
    }
    #expect(error?.code == .nestingTooDeep)
  }

  @Test func roundTripKeepsEveryKind() throws {
    let date = Date(timeIntervalSince1970: 1_704_164_645)
    let data = Data("hello".utf8)
    let inner: [(String, SettingValue.Kind)] = [
      ("string", .string("tab\there \"quoted\" é 😀 \u{0}")), ("int", .integer(-42)), ("max", .integer(.max)),
      ("min", .integer(.min)), ("double", .double(0.1)), ("integral", .double(1e16)),
      ("tiny", .double(.leastNonzeroMagnitude)),
      ("negativeZero", .double(-0.0)), ("yes", .bool(true)), ("no", .bool(false)),
      ("array", .array([Self.node(.integer(1)), Self.node(.double(2.5)), Self.node(.array([]))])),
      ("empty", .table(SettingTable())),
    ]
    let tree = Self.table([("section", Self.table(inner).kind), ("date", .date(date)), ("data", .data(data))])
    let expected = Self.table([
      ("section", Self.table(inner).kind), ("date", .string("2024-01-02T03:04:05Z")),
      ("data", .string(data.base64EncodedString())),
    ])
    let parsed = try parse(try Self.text(tree), as: JSONFormat()).root
    #expect(parsed == expected)
    #expect(parsed.table?.keys == ["section", "date", "data"])
    guard case .double(let zero)? = parsed.value(at: "section.negativeZero")?.kind else {
      Issue.record("not a double")
      return
    }
    #expect(zero.sign == .minus)
  }

  @Test func doublesReadBackAsTheSameDoubles() async throws {
    // 10,000 round trips in a debug build: on a thread of its own, not the cooperative pool's.
    try await checkedOnOwnThread { checks in
      var rng = SplitMix64(seed: 3)
      for _ in 0..<5_000 {
        let value = Double(bitPattern: rng.next() & 0x7FEF_FFFF_FFFF_FFFF) * (rng.next() % 2 == 0 ? 1 : -1)
        for candidate in [value, value.rounded()] {
          let parsed = try parse(try Self.text(Self.table([("v", .double(candidate))])), as: JSONFormat())
            .root
          checks.expect(parsed.value(at: "v")?.kind == .double(candidate), "\(candidate)")
        }
      }
    }
  }

  @Test func generatedDocumentMatchesFoundationAndRoundTrips() async throws {
    // A megabyte parsed three ways in a debug build: on a thread of its own, not the cooperative pool's.
    try await checkedOnOwnThread { checks in
      let text = configShapedJSON()
      checks.expect(text.utf8.count > 900_000, "\(text.utf8.count) bytes")
      let document = try parse(text, as: JSONFormat())
      checks.expect(document.diagnostics.isEmpty, "\(document.diagnostics)")
      let reference = try JSONSerialization.jsonObject(with: Data(text.utf8))
      checks.expect(document.root.table?.count == 1_000, "\(document.root.table?.count ?? -1) keys")
      checks.expect(sameContent(document.root, reference), "the tree differs from JSONSerialization's")
      let again = try parse(try Self.text(document.root), as: JSONFormat()).root
      checks.expect(again == document.root, "the serialized tree reads back differently")
      checks.expect(again.table?.keys == document.root.table?.keys, "the keys read back in another order")
    }
  }
}
