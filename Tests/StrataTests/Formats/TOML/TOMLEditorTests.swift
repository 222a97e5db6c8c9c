import Foundation
import Testing

@testable import Strata

/// Edits `text` with `TOMLFormat`'s in-place editor.
private func edit(_ text: String, _ value: SettingValue.Kind?, at key: String) throws -> String {
  let bytes = try TOMLFormat().edit(
    Array(text.utf8), setting: value.map { SettingValue($0, origin: .runtime) }, at: key,
    path: "/etc/demo/demo.toml", options: ParseOptions())
  return String(decoding: bytes, as: UTF8.self)
}

@Suite struct TOMLEditorTests {
  let file = """
    # Demo settings
    title = "demo"  # shown in the banner

    [server]
    host = "0.0.0.0"
    port = 8080 # the listener

    # Database
    [database]
    pool = { min = 1, max = 8 }

    """

  @Test func settingAScalarChangesOnlyItsValue() throws {
    let edited = try edit(file, .integer(9000), at: "server.port")
    #expect(edited == file.replacingOccurrences(of: "port = 8080 #", with: "port = 9000 #"))
    let title = try edit(file, .string("new \"one\""), at: "title")
    #expect(title == file.replacingOccurrences(of: "\"demo\"", with: #""new \"one\"""#))
  }

  @Test func aNewKeyGoesAtTheEndOfItsTablesSection() throws {
    let edited = try edit(file, .bool(true), at: "server.tls")
    #expect(edited == file.replacingOccurrences(of: "# the listener\n", with: "# the listener\ntls = true\n"))
    let dotted = try edit(file, .string("x"), at: "server.limits.name")
    #expect(dotted.contains("port = 8080 # the listener\nlimits.name = \"x\"\n\n# Database"))
    let top = try edit(file, .integer(1), at: "version")
    #expect(top.contains("# shown in the banner\nversion = 1\n"))
  }

  @Test func aKeyOfATableWithoutASectionGetsANewSectionAtTheEnd() throws {
    let edited = try edit(file, .string("debug"), at: "log.level")
    #expect(edited == file + "\n[log]\nlevel = \"debug\"\n")
  }

  @Test func removingAKeyRemovesItsLineOnly() throws {
    let edited = try edit(file, nil, at: "server.host")
    #expect(edited == file.replacingOccurrences(of: "host = \"0.0.0.0\"\n", with: ""))
  }

  @Test func arraysAndDatesAreWrittenAsTOMLValues() throws {
    let edited = try edit(file, .array([SettingValue(.string("a"), origin: .runtime)]), at: "server.host")
    #expect(edited.contains("host = [\"a\"]\n"))
    let root = try TOMLFormat().parse(Array(edited.utf8), path: "/x.toml", options: ParseOptions()).root
    #expect(root.value(at: "server.port")?.kind == .integer(8080))
  }

  @Test func aKeyInsideAnInlineTableIsWrittenThroughTheTree() throws {
    let edited = try edit(file, .integer(16), at: "database.pool.max")
    let root = try TOMLFormat().parse(Array(edited.utf8), path: "/x.toml", options: ParseOptions()).root
    #expect(root.value(at: "database.pool.max")?.kind == .integer(16))
    #expect(root.value(at: "server.port")?.kind == .integer(8080))
  }

  @Test func aCRLFFileGetsCRLFLines() throws {
    let edited = try edit("[a]\r\nb = 1\r\n", .integer(2), at: "a.c")
    #expect(edited == "[a]\r\nb = 1\r\nc = 2\r\n")
  }

  @Test func aFileThatDoesNotParseIsNotEdited() throws {
    #expect(throws: StrataError.self) { try edit("a = \n", .integer(1), at: "b") }
  }

  @Test func anEmptyFileGetsTheKey() throws {
    #expect(try edit("", .integer(1), at: "a") == "a = 1\n")
    #expect(try edit("", .integer(1), at: "a.b") == "[a]\nb = 1\n")
  }
}
