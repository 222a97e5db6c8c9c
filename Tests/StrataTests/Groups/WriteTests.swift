import Foundation
import Testing

@testable import Strata

struct WritableSettings: SettingsGroup {
  static var section: String { "server" }
  @Setting var port = 8080
  @Setting var host = "localhost"
  @Setting(traits: .readOnly) var build = "dev"
  @Setting(validation: .range(1...9)) var level = 1
}

@Suite struct WriteTests {
  func store(_ dir: String, file: String = "app.json") -> SettingsStore {
    SettingsStore(
      layers: [
        FileLayer(scope: .system, files: [dir + "/system.json"]),
        FileLayer(scope: .user, files: [dir + "/" + file]),
      ],
      writeTarget: .file(dir + "/" + file))
  }

  @Test func assignmentWritesTheUserFileAndPublishesAtOnce() throws {
    try withTemporaryDirectory { dir in
      try write(#"{"server": {"port": 81, "host": "sys"}}"#, to: dir + "/system.json")
      let settings = WritableSettings(store: store(dir))
      #expect(settings.port == 81)
      try settings.$port.save(9000)
      #expect(settings.port == 9000)
      #expect(settings.$port.origin.path == dir + "/app.json")
      let text = try String(contentsOfFile: dir + "/app.json", encoding: .utf8)
      #expect(text == "{\n  \"server\": {\n    \"port\": 9000\n  }\n}\n")
      let mode =
        try FileManager.default.attributesOfItem(atPath: dir + "/app.json")[.posixPermissions] as? Int
      #expect(mode == 0o600)
      // No temporary files are left behind.
      #expect(
        try FileManager.default.contentsOfDirectory(atPath: dir).sorted() == ["app.json", "system.json"])
      try settings.$port.removeSaved()
      #expect(settings.port == 81)
      #expect(try String(contentsOfFile: dir + "/app.json", encoding: .utf8) == "{}\n")
    }
  }

  @Test func anExistingFileKeepsItsModeAndOtherKeys() throws {
    try withTemporaryDirectory { dir in
      try write(#"{"other": {"x": [1, 2]}, "server": {"host": "h"}}"#, to: dir + "/app.json")
      try FileManager.default.setAttributes([.posixPermissions: 0o640], ofItemAtPath: dir + "/app.json")
      let settings = WritableSettings(store: store(dir))
      try settings.$port.save(7)
      let reparsed = try #require(try Formats.load(path: dir + "/app.json"))
      #expect(reparsed.root.value(at: "other.x").map(ValueText.plain) == "[1, 2]")
      #expect(reparsed.root.value(at: "server.host")?.kind == .string("h"))
      #expect(reparsed.root.value(at: "server.port")?.kind == .integer(7))
      let mode =
        try FileManager.default.attributesOfItem(atPath: dir + "/app.json")[.posixPermissions] as? Int
      #expect(mode == 0o640)
    }
  }

  @Test func iniWritesKeepCommentsAndOtherLinesByteForByte() throws {
    try withTemporaryDirectory { dir in
      let original = "; managed by hand\n[server]\nhost = a   ; the host\n\n# the port\nport = 1\n"
      try write(original, to: dir + "/app.ini")
      let settings = WritableSettings(store: store(dir, file: "app.ini"))
      try settings.$port.save(2)
      try settings.$level.save(3)
      let text = try String(contentsOfFile: dir + "/app.ini", encoding: .utf8)
      #expect(
        text == "; managed by hand\n[server]\nhost = a   ; the host\n\n# the port\nport = 2\nlevel = 3\n")
      #expect(settings.port == 2 && settings.level == 3)
      try settings.$level.removeSaved()
      #expect(
        try String(contentsOfFile: dir + "/app.ini", encoding: .utf8)
          == original.replacing("port = 1", with: "port = 2"))
    }
  }

  @Test func plistFilesAreRewrittenReadably() throws {
    try withTemporaryDirectory { dir in
      let settings = WritableSettings(store: store(dir, file: "app.plist"))
      try settings.$host.save("example.org")
      let text = try String(contentsOfFile: dir + "/app.plist", encoding: .utf8)
      #expect(text.contains("<key>host</key>\n\t\t<string>example.org</string>"))
      #expect(settings.host == "example.org")
    }
  }

  @Test func aFailedWriteThrowsAndChangesNothing() throws {
    try withTemporaryDirectory { dir in
      try write(#"{"server": {"port": 5}}"#, to: dir + "/conf/app.json")
      let store = SettingsStore(
        layers: [FileLayer(scope: .user, files: [dir + "/conf/app.json"])],
        writeTarget: .file(dir + "/conf/app.json"))
      let settings = WritableSettings(store: store)
      // A directory we cannot write to: as root, permissions do not stop us, so make the temp-file
      // name impossible instead by putting a file where the directory should be.
      let blocked = SettingsStore(
        layers: [FileLayer(scope: .user, files: [dir + "/conf/app.json/x.json"])],
        writeTarget: .file(dir + "/conf/app.json/x.json"))
      let other = WritableSettings(store: blocked)
      #expect(throws: StrataError.self) { try other.$port.save(1) }
      do throws(StrataError) {
        try other.$port.save(1)
      } catch {
        #expect(error.code == .writeFailed)
        #expect(error.path == dir + "/conf/app.json")
        #expect(error.message == "cannot create the directory: a file is in the way")
      }
      #expect(other.port == 8080)
      #expect(settings.port == 5)
      #expect(
        try String(contentsOfFile: dir + "/conf/app.json", encoding: .utf8) == #"{"server": {"port": 5}}"#)
    }
  }

  @Test func aBrokenFileIsNeverOverwritten() throws {
    try withTemporaryDirectory { dir in
      try write("{\"server\": {\"port\": 5,}}", to: dir + "/app.json")
      let settings = WritableSettings(store: store(dir))
      #expect(settings.store.diagnostics.first?.error.code == .syntax)
      do throws(StrataError) {
        try settings.$port.save(6)
        Issue.record("the write should have failed")
      } catch {
        #expect(error.code == .syntax)
        #expect(error.location == dir + "/app.json:1:23")
      }
      #expect(
        try String(contentsOfFile: dir + "/app.json", encoding: .utf8) == "{\"server\": {\"port\": 5,}}")
    }
  }

  @Test func readOnlyAndValidationRefuseWrites() throws {
    let settings = WritableSettings.inMemory()
    #expect(throws: StrataError.self) { try settings.$build.save("x") }
    #expect(throws: StrataError.self) { try settings.$level.save(10) }
    #expect(settings.level == 1)
    try settings.$level.save(9)
    #expect(settings.level == 9)
  }
}
