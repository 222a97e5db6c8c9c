import Testing

@testable import Strata

@Suite struct DotEnvEditorTests {
  func edit(_ text: String, _ value: SettingValue.Kind?, at key: String) throws -> String {
    let result = try DotEnvFormat().edit(
      Array(text.utf8), setting: value.map { SettingValue($0, origin: .runtime) }, at: key, path: "f.env",
      options: ParseOptions())
    return String(decoding: result, as: UTF8.self)
  }

  static let file = """
    # Server settings
    export SERVER__HOST = "0.0.0.0"   # every interface
    SERVER__PORT=8080

    # the database
    db.password='s3cret'
    """ + "\n"

  @Test func settingAnExistingKeyChangesOnlyItsValue() throws {
    #expect(
      try edit(Self.file, .integer(9090), at: "server.port")
        == Self.file.replacing("SERVER__PORT=8080", with: "SERVER__PORT=9090"))
    #expect(
      try edit(Self.file, .string("127.0.0.1"), at: "server.host")
        == Self.file.replacing(#""0.0.0.0""#, with: "127.0.0.1"))
    #expect(
      try edit(Self.file, .string("new # pass"), at: "db.password")
        == Self.file.replacing("'s3cret'", with: "'new # pass'"))
  }

  @Test func theLastAssignmentIsTheOneEdited() throws {
    #expect(try edit("A=1\nA=2\n", .string("3"), at: "a") == "A=1\nA=3\n")
  }

  @Test func aMissingKeyIsAppended() throws {
    #expect(try edit(Self.file, .bool(true), at: "server.debug") == Self.file + "server.debug=true\n")
    #expect(try edit("A=1", .string("x y"), at: "b") == "A=1\nb=x y\n")
    #expect(try edit("A=1\r\n", .string("2"), at: "b") == "A=1\r\nb=2\r\n")
    #expect(try edit("", .string("2"), at: "b") == "b=2\n")
  }

  @Test func removingDeletesEveryAssignmentOfTheKeyAndBelowIt() throws {
    #expect(try edit("A=1\nB=2\nA=3\n", nil, at: "a") == "B=2\n")
    #expect(
      try edit(Self.file, nil, at: "server") == "# Server settings\n\n# the database\ndb.password='s3cret'\n")
    #expect(try edit("M=\"a\nb\"\nN=1\n", nil, at: "m") == "N=1\n")
  }

  @Test func tablesAreAppliedLeafByLeaf() throws {
    let table = SettingTable([
      ("host", SettingValue(.string("h"), origin: .runtime)),
      ("tls", SettingValue(.bool(false), origin: .runtime)),
    ])
    #expect(
      try edit(Self.file, .table(table), at: "server")
        == Self.file.replacing(#""0.0.0.0""#, with: "h").replacing("SERVER__PORT=8080\n", with: "")
        + "server.tls=false\n")
  }

  @Test func conflictingAssignmentsGiveWay() throws {
    #expect(try edit("A=1\nB=2\n", .string("x"), at: "a.b") == "B=2\na.b=x\n")
    #expect(try edit("A__B=1\nA__C=2\n", .string("x"), at: "a") == "a=x\n")
  }

  @Test func assignmentsThatWereOverriddenDoNotComeBack() throws {
    // `server=x` had replaced the table holding `server.host`; setting `server.port` removes it, and
    // `server.host` with it, so the tree changes only at the key written.
    #expect(
      try edit("server.host=a\nserver=x\nserver.port=1\n", .string("2"), at: "server.port")
        == "server.port=2\n")
    #expect(try edit("A=1\nA__B=2\n", nil, at: "a.b") == "")
    #expect(try edit("A=1\nA=2\nB=3\n", .string("x"), at: "a") == "A=1\nA=x\nB=3\n")
  }

  @Test func brokenFilesAndArraysAreRefused() {
    #expect(throws: StrataError.self) { try edit("A=\"open\n", .string("x"), at: "a") }
    #expect(throws: StrataError.self) { try edit("A=1\n", .array([]), at: "a") }
  }
}
