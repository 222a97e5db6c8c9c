import Testing

@testable import Strata

/// String values kept as slices of their file's bytes (`SettingValue`'s text storage) read, compare and
/// change exactly as values holding a `String` do.
@Suite struct SourceTextValueTests {
  private let source = SourceText(
    path: "/etc/app/app.ini", bytes: Array("name = caf\u{E9}\nother = cafe\u{301}\n".utf8))

  /// The slice `name`'s value is in `source`: `café`, precomposed, at line 1, column 8.
  private var precomposed: SettingValue { SettingValue(text: source, start: 7, end: 12, line: 1, column: 8) }
  /// `other`'s value: `café` with a combining accent, at line 2, column 9.
  private var decomposed: SettingValue { SettingValue(text: source, start: 21, end: 27, line: 2, column: 9) }

  @Test func aSliceReadsAsItsStringAndOrigin() {
    #expect(precomposed.kind == .string("caf\u{E9}"))
    #expect(precomposed.origin == .file(path: "/etc/app/app.ini", line: 1, column: 8))
    #expect(precomposed.typeName == "string")
    #expect(!precomposed.isTable && precomposed.table == nil)
    #expect(precomposed.description == "\"caf\u{E9}\"")
    guard case .text = precomposed.storage else {
      Issue.record("a value made from a file's bytes should stay a slice")
      return
    }
  }

  @Test func slicesCompareAsStringsDo() {
    let node = SettingValue(.string("caf\u{E9}"), origin: .runtime)
    #expect(precomposed == node && node == precomposed)
    // Different bytes, canonically equivalent: equal, as two `String`s are.
    #expect(precomposed == decomposed)
    #expect(precomposed != SettingValue(text: source, start: 7, end: 11, line: 1, column: 8))
    #expect(precomposed != SettingValue(.integer(1), origin: .runtime))
    let empty = SettingValue(text: source, start: 0, end: 0, line: 1, column: 1)
    #expect(empty == SettingValue(text: source, start: 4, end: 4, line: 1, column: 5))
    #expect(empty == SettingValue(.string(""), origin: .runtime))
  }

  @Test func identityTakesTheOriginIntoAccount() {
    #expect(precomposed.isIdentical(to: precomposed))
    #expect(precomposed.isIdentical(to: SettingValue(.string("caf\u{E9}"), origin: precomposed.origin)))
    #expect(!precomposed.isIdentical(to: SettingValue(text: source, start: 7, end: 12, line: 1, column: 9)))
    let sameBytesElsewhere = SourceText(path: "/etc/app/app.ini", bytes: source.bytes)
    #expect(
      precomposed.isIdentical(
        to: SettingValue(text: sameBytesElsewhere, start: 7, end: 12, line: 1, column: 8)))
    #expect(!precomposed.isIdentical(to: decomposed))
  }

  @Test func changingAKindOrAnOriginKeepsTheOtherPart() {
    var value = precomposed
    value.origin = .runtime
    #expect(value.kind == .string("caf\u{E9}") && value.origin == .runtime)
    value = precomposed
    value.kind = .integer(3)
    #expect(value.kind == .integer(3))
    #expect(value.origin == .file(path: "/etc/app/app.ini", line: 1, column: 8))
  }

  @Test func positionsPastFourGigabytesFallBackToAString() {
    let value = SettingValue(text: source, start: 7, end: 12, line: 1 << 33, column: 8)
    #expect(value.kind == .string("caf\u{E9}"))
    #expect(value.origin == .file(path: "/etc/app/app.ini", line: 1 << 33, column: 8))
  }

  /// A slice costs a table entry no more room than a `String` and an origin did.
  @Test func aValueStaysOneCacheLine() {
    #expect(MemoryLayout<SettingValue>.stride <= 64)
  }

  @Test func iniValuesAreSlicesUnlessTheyAreRewritten() throws {
    let document = try parse(
      """
      [server]
      host = example.org  ; a comment
      quoted = "a\\tb"
      literal = 'x; y'
      long = first
        second
      """, as: INIFormat(), path: "/etc/app/app.ini")
    func value(_ key: String) throws -> SettingValue {
      try #require(document.root.value(at: "server.\(key)"))
    }
    for (key, text, line, column, isSlice) in [
      ("host", "example.org", 2, 8, true), ("quoted", "a\tb", 3, 10, false), ("literal", "x; y", 4, 11, true),
      ("long", "first\nsecond", 5, 8, false),
    ] {
      let node = try value(key)
      #expect(node.kind == .string(text), "\(key)")
      #expect(node.origin == .file(path: "/etc/app/app.ini", line: line, column: column), "\(key)")
      if case .text = node.storage { #expect(isSlice, "\(key)") } else { #expect(!isSlice, "\(key)") }
    }
  }

  private func isSlice(_ value: SettingValue?) -> Bool {
    if case .text? = value?.storage { return true }
    return false
  }

  @Test func jsonStringsWithoutEscapesAreSlices() throws {
    let document = try parse(
      "{\"a\": \"plain\", \"b\": \"tab\\there\", \"c\": \"caf\u{E9}\", \"d\": [\"x\"], \"e\": 1}",
      as: JSONFormat(), path: "/etc/app/app.json")
    let root = try #require(document.root.table)
    #expect(root["a"]?.kind == .string("plain") && isSlice(root["a"]))
    #expect(root["a"]?.origin == .file(path: "/etc/app/app.json", line: 1, column: 7))
    #expect(root["b"]?.kind == .string("tab\there") && !isSlice(root["b"]))
    #expect(root["c"]?.kind == .string("caf\u{E9}") && isSlice(root["c"]))
    guard case .array(let items)? = root["d"]?.kind else {
      Issue.record("d should be an array")
      return
    }
    #expect(items.map(\.kind) == [.string("x")] && isSlice(items.first))
    #expect(root["e"]?.kind == .integer(1))
  }

  @Test func xmlPlistStringsInPlainASCIIAreSlices() throws {
    let document = try parse(
      """
      <?xml version="1.0" encoding="UTF-8"?>
      <plist version="1.0"><dict>
        <key>a</key><string>plain</string>
        <key>b</key><string>a &amp; b</string>
        <key>c</key><string>caf\u{E9}</string>
        <key>d</key><string/>
      </dict></plist>
      """, as: PropertyListFormat(), path: "/etc/app/app.plist")
    let root = try #require(document.root.table)
    #expect(root["a"]?.kind == .string("plain") && isSlice(root["a"]))
    #expect(root["a"]?.origin == .file(path: "/etc/app/app.plist", line: 3, column: 15))
    #expect(root["b"]?.kind == .string("a & b") && !isSlice(root["b"]))
    #expect(root["c"]?.kind == .string("caf\u{E9}") && !isSlice(root["c"]))
    #expect(root["d"]?.kind == .string(""))
  }

  @Test func binaryPlistASCIIStringsAreSlices() throws {
    let tree = SettingValue(
      .table(
        SettingTable([
          ("a", SettingValue(.string("a plain ASCII string of some length"), origin: .runtime)),
          ("b", SettingValue(.string("caf\u{E9}"), origin: .runtime)),
          ("c", SettingValue(.integer(7), origin: .runtime)),
        ])), origin: .runtime)
    let bytes = try PropertyListFormat().serializeBinary(tree)
    let document = try PropertyListFormat().parse(bytes, path: "/etc/app/app.plist", options: ParseOptions())
    let root = try #require(document.root.table)
    #expect(document.root == tree)
    #expect(isSlice(root["a"]) && !isSlice(root["b"]))
    #expect(root["a"]?.origin == .file(path: "/etc/app/app.plist", line: 0, column: 0))
    #expect(root["b"]?.origin == .file(path: "/etc/app/app.plist", line: 0, column: 0))
  }

  /// A member parsed again by a splice holds `String`s: a slice would keep that version of the file alive
  /// beside the one the other members are slices of.
  @Test func aSplicedMemberHoldsStrings() throws {
    let bytes = Array("{\"a\": {\"b\": \"plain\"}}".utf8)
    let member = try JSONFormat().parseMember(
      bytes, at: 6, line: 1, lineStart: 0, depth: 1, path: "/etc/app/app.json", options: ParseOptions())
    let value = try #require(member.value?.value(at: "b"))
    #expect(value.kind == .string("plain") && !isSlice(value))
    #expect(value.origin == .file(path: "/etc/app/app.json", line: 1, column: 13))
    let full = try JSONFormat().parse(bytes, path: "/etc/app/app.json", options: ParseOptions())
    #expect(isSlice(full.root.value(at: "a.b")))
  }

  /// The slice path checks an ASCII string object's bytes as the `String` path did.
  @Test func aBinaryPlistASCIIStringWithANonASCIIByteIsRefused() throws {
    let tree = SettingValue(
      .table(SettingTable([("a", SettingValue(.string("plain-ascii-text"), origin: .runtime))])),
      origin: .runtime)
    var bytes = try PropertyListFormat().serializeBinary(tree)
    let text = Array("plain-ascii-text".utf8)
    let at = try #require(
      (0...(bytes.count - text.count)).first { Array(bytes[$0..<($0 + text.count)]) == text })
    bytes[at + 5] = 0xE9
    let error = parseError(bytes: bytes)
    #expect(error?.code == .invalidPropertyList)
    #expect(error?.message.contains("ASCII string at offset") == true)
    #expect(error?.message.contains("non-ASCII bytes") == true)
  }

  private func parseError(bytes: [UInt8]) -> StrataError? {
    do {
      _ = try PropertyListFormat().parse(bytes, path: "/etc/app/app.plist", options: ParseOptions())
      return nil
    } catch {
      return error
    }
  }
}
