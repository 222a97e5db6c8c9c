import Testing

@testable import Strata

@Suite struct INIEditorTests {
  func edit(_ text: String, _ value: SettingValue.Kind?, at key: String) throws -> String {
    let result = try INIFormat().edit(
      Array(text.utf8), setting: value.map { SettingValue($0, origin: .runtime) }, at: key, path: "f.ini",
      options: ParseOptions())
    return String(decoding: result, as: UTF8.self)
  }

  static let file = """
    ; Server settings
    top = 1

    [server]
    host = "0.0.0.0"   # every interface
    port=8080
    ; the limit below is per client
    limit : 10

    [log]
    level = info
    """ + "\n"

  @Test func settingAnExistingKeyChangesOnlyItsValue() throws {
    #expect(
      try edit(Self.file, .integer(9090), at: "server.port")
        == Self.file.replacing("port=8080", with: "port=9090"))
    #expect(
      try edit(Self.file, .string("127.0.0.1"), at: "server.host")
        == Self.file.replacing(
          #"host = "0.0.0.0"   # every interface"#, with: "host = 127.0.0.1   # every interface"))
    #expect(
      try edit(Self.file, .string("a # b"), at: "server.limit")
        == Self.file.replacing("limit : 10", with: #"limit : "a # b""#))
  }

  @Test func aMissingKeyGoesAtTheEndOfItsSection() throws {
    #expect(
      try edit(Self.file, .bool(true), at: "server.debug")
        == Self.file.replacing("limit : 10\n", with: "limit : 10\ndebug = true\n"))
    #expect(try edit(Self.file, .string("x"), at: "log.format") == Self.file + "format = x\n")
    #expect(
      try edit(Self.file, .integer(2), at: "other")
        == Self.file.replacing("top = 1\n", with: "top = 1\nother = 2\n"))
    #expect(try edit(Self.file, .integer(3), at: "db.pool.size") == Self.file + "\n[db.pool]\nsize = 3\n")
    #expect(
      try edit(Self.file, .integer(4), at: "server.tls.port")
        == Self.file.replacing("limit : 10\n", with: "limit : 10\ntls.port = 4\n"))
  }

  @Test func gitStyleSectionsAreFound() throws {
    let text = "[remote \"origin\"]\n\turl = a\n[branch \"main\"]\n\tmerge = b\n"
    #expect(
      try edit(text, .string("c"), at: "remote.origin.fetch")
        == "[remote \"origin\"]\n\turl = a\nfetch = c\n[branch \"main\"]\n\tmerge = b\n")
  }

  @Test func removingDeletesEveryOccurrence() throws {
    let text = "[s]\na = 1\nb = 2\na = 3\n"
    #expect(try edit(text, nil, at: "s.a") == "[s]\nb = 2\n")
    #expect(try edit(text, nil, at: "s.missing") == text)
  }

  @Test func arraysAreRewrittenInPlace() throws {
    let text = "[s]\nx[] = 1\nx[] = 2\ny = 0\n"
    #expect(
      try edit(text, .array([.init(.string("a"), origin: .runtime)]), at: "s.x") == "[s]\nx[] = a\ny = 0\n")
    #expect(
      try edit(
        text, .array([.init(.integer(5), origin: .runtime), .init(.integer(6), origin: .runtime)]), at: "s.y")
        == "[s]\nx[] = 1\nx[] = 2\ny[] = 5\ny[] = 6\n")
    #expect(throws: StrataError.self) {
      try edit(text, .array([.init(.table(SettingTable()), origin: .runtime)]), at: "s.z")
    }
  }

  @Test func continuationsCRLFAndBOMAreKept() throws {
    #expect(try edit("[s]\na = one \\\n  two\nb = 1\n", .string("x"), at: "s.a") == "[s]\na = x\nb = 1\n")
    #expect(try edit("[s]\r\na = 1\r\n", .integer(2), at: "s.b") == "[s]\r\na = 1\r\nb = 2\r\n")
    #expect(try edit("\u{FEFF}a = 1\n", .integer(2), at: "a") == "\u{FEFF}a = 2\n")
    #expect(try edit("\u{FEFF}[s]\nx = 1\n", .integer(2), at: "a") == "\u{FEFF}a = 2\n[s]\nx = 1\n")
  }

  @Test func tablesApplyLeafByLeaf() throws {
    let text = "[tls]\nenabled = no\ncert = a.pem\nold = 1\n"
    let table = SettingTable([
      ("enabled", SettingValue(.bool(true), origin: .runtime)),
      ("cert", SettingValue(.string("b.pem"), origin: .runtime)),
      ("key", SettingValue(.string("k.pem"), origin: .runtime)),
    ])
    #expect(try edit(text, .table(table), at: "tls") == "[tls]\nenabled = true\ncert = b.pem\nkey = k.pem\n")
  }

  @Test func aFileWithoutAFinalNewlineGetsOne() throws {
    #expect(try edit("; only a comment", .integer(1), at: "a") == "; only a comment\na = 1\n")
    #expect(try edit("[s]\nx = 1", .integer(2), at: "s.y") == "[s]\nx = 1\ny = 2\n")
  }

  @Test func aBrokenFileIsNotEdited() throws {
    #expect(throws: StrataError.self) { try edit("[s\na = 1\n", .integer(1), at: "s.a") }
    #expect(try edit("", .integer(1), at: "s.a") == "[s]\na = 1\n")
  }

  @Test func randomEditsAlwaysParseToTheExpectedTree() throws {
    var generator = SystemRandomNumberGenerator()
    var text = Self.file
    var expected = try INIFormat().parse(Array(text.utf8), path: "f.ini", options: ParseOptions()).root
    let keys = ["top", "server.host", "server.port", "server.new", "log.level", "db.url", "a.b.c", "x"]
    for step in 0..<300 {
      let key = keys.randomElement(using: &generator)!
      let value: SettingValue.Kind? = Bool.random(using: &generator) ? nil : .string("v\(step) #;\"'")
      text = try edit(text, value, at: key)
      if let value {
        expected.set(SettingValue(value, origin: .runtime), at: key)
      } else {
        expected.remove(at: key)
      }
      let parsed = try INIFormat().parse(Array(text.utf8), path: "f.ini", options: ParseOptions()).root
      var leaves: [String: String] = [:]
      parsed.forEachLeaf { leaves[$0] = ValueText.plain($1) }
      var wanted: [String: String] = [:]
      expected.forEachLeaf { wanted[$0] = ValueText.plain($1) }
      #expect(leaves == wanted, "step \(step): \(key)\n\(text)")
      if leaves != wanted { break }
    }
    // Comments survive any number of edits.
    #expect(text.hasPrefix("; Server settings\n"))
    #expect(text.contains("; the limit below is per client"))
  }
}
