import Foundation
import Testing

@testable import Strata

/// Typed access by key for code that knows the key only at run time: reads with origins, writes that
/// honour the declared setting's traits and validation.
@Suite struct KeyedAccessTests {
  func store(_ dir: String) -> SettingsStore {
    SettingsStore(
      layers: [
        FileLayer(scope: .system, files: [dir + "/system.json"]),
        FileLayer(scope: .user, files: [dir + "/app.json"]),
      ],
      writeTarget: .file(dir + "/app.json"))
  }

  @Test func aDeclaredSettingIsReadAsItsRunningValueWithItsOrigin() throws {
    try withTemporaryDirectory { dir in
      try write(#"{"server": {"port": "81", "extra": {"flag": true}}}"#, to: dir + "/system.json")
      let store = store(dir)
      let settings = WritableSettings(store: store)
      let port = try #require(try store.value(forKey: "server.port", as: Int.self))
      #expect(port.value == 81)
      #expect(port.value == settings.port)
      #expect(port.origin.description == dir + "/system.json:1:21")
      // A key no setting declares: the merged value, converted.
      let flag = try #require(try store.value(forKey: "server.extra.flag", as: Bool.self))
      #expect(flag.value == true)
      #expect(try store.value(forKey: "server.nothing", as: Int.self) == nil)
      #expect(throws: StrataError.self) { try store.value(forKey: "server.host", as: Int.self) }
    }
  }

  @Test func aWriteByKeyHonoursTheDeclaredSetting() throws {
    try withTemporaryDirectory { dir in
      let store = store(dir)
      let settings = WritableSettings(store: store)
      try store.setValue(9000, forKey: "server.port")
      #expect(settings.port == 9000)
      #expect(settings.$port.origin.path == dir + "/app.json")
      // Validation, conversion and read-only hold as they do through the property's record.
      let invalid = #expect(throws: StrataError.self) { try store.setValue(42, forKey: "server.level") }
      #expect(invalid?.message.contains("server.level") == true)
      #expect(throws: StrataError.self) { try store.setValue("x", forKey: "server.port") }
      #expect(throws: StrataError.self) { try store.setValue("prod", forKey: "server.build") }
      #expect(settings.level == 1)
      #expect(settings.build == "dev")
      // A key nothing declares is written as given.
      try store.setValue("on", forKey: "plugins.cache.mode")
      #expect(try store.value(forKey: "plugins.cache.mode", as: String.self)?.value == "on")
      let text = try String(contentsOfFile: dir + "/app.json", encoding: .utf8)
      #expect(text.contains("\"mode\": \"on\""))
      #expect(!text.contains("level"))
    }
  }
}
