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
      try store.saveValue(9000, forKey: "server.port")
      #expect(settings.port == 9000)
      #expect(settings.$port.origin.path == dir + "/app.json")
      // Validation, conversion and read-only hold as they do through the property's record.
      let invalid = #expect(throws: StrataError.self) { try store.saveValue(42, forKey: "server.level") }
      #expect(invalid?.message.contains("server.level") == true)
      #expect(throws: StrataError.self) { try store.saveValue("x", forKey: "server.port") }
      #expect(throws: StrataError.self) { try store.saveValue("prod", forKey: "server.build") }
      #expect(settings.level == 1)
      #expect(settings.build == "dev")
      // A key nothing declares is written as given.
      try store.saveValue("on", forKey: "plugins.cache.mode")
      #expect(try store.value(forKey: "plugins.cache.mode", as: String.self)?.value == "on")
      let text = try String(contentsOfFile: dir + "/app.json", encoding: .utf8)
      #expect(text.contains("\"mode\": \"on\""))
      #expect(!text.contains("level"))
    }
  }

  @Test func anAsyncWriteByKeyHonoursTheDeclaredSettingAndChangesNothingWhenRefused() async throws {
    try await withTemporaryDirectory { dir in
      try write(#"{"server": {"port": 81}}"#, to: dir + "/system.json")
      let store = store(dir)
      let settings = WritableSettings(store: store)
      try await store.saveValue(9000, forKey: "server.port")
      #expect(settings.port == 9000)
      #expect(settings.$port.origin.path == dir + "/app.json")
      let written = try String(contentsOfFile: dir + "/app.json", encoding: .utf8)
      // Refused: read-only, out of range, not convertible. The file and the generation stay as they were.
      let generation = store.generation
      await #expect(throws: StrataError.self) { try await store.saveValue("prod", forKey: "server.build") }
      await #expect(throws: StrataError.self) { try await store.saveValue(42, forKey: "server.level") }
      let mismatch = await #expect(throws: StrataError.self) {
        try await store.saveValue("x", forKey: "server.port")
      }
      #expect(mismatch?.message.contains("server.port") == true)
      #expect(try String(contentsOfFile: dir + "/app.json", encoding: .utf8) == written)
      #expect(store.generation == generation)
      #expect(settings.build == "dev" && settings.level == 1 && settings.port == 9000)
      // The value the file holds already: nothing written, no new generation.
      try await store.saveValue(9000, forKey: "server.port")
      #expect(store.generation == generation)
      // nil removes the key from the write target: the lower layer's value applies again.
      try await store.saveValue(Int?.none, forKey: "server.port")
      #expect(settings.port == 81)
      #expect(settings.$port.origin.path == dir + "/system.json")
      #expect(store.generation > generation)
    }
  }
}
