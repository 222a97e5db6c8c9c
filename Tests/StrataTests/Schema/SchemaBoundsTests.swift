import Testing

@testable import Strata

enum BoundedLogLevel: String, Codable, CaseIterable, Sendable {
  case trace, debug, info, warning, error
}

struct BoundedSettings: SettingsGroup {
  static var section: String { "server" }
  @Setting(validation: .range(1...65535)) var port = 8080
  @Setting(validation: .range(0.0...1.0)) var sampleRate = 0.5
  @Setting var level = BoundedLogLevel.info
}

/// What the program rejects, `config-dump --check --schema` rejects: ranges travel as `minimum` and
/// `maximum`; case names read in any letter case (`DEBUG`), in the program and in the check alike.
@Suite struct SchemaBoundsTests {
  @Test func rangesAreExportedAsMinimumAndMaximumAndComeBack() throws {
    let group = BoundedSettings.inMemory()  // held: a released group's settings leave the store
    let exported = group.store.schema.jsonSchema(title: "bounded")
    let port = try #require(exported.value(at: "properties.server.properties.port"))
    #expect(port.value(at: "minimum")?.kind == .integer(1))
    #expect(port.value(at: "maximum")?.kind == .integer(65535))
    let rate = try #require(exported.value(at: "properties.server.properties.sampleRate"))
    #expect(rate.value(at: "maximum")?.kind == .double(1.0))
    let imported = try SettingsSchema(jsonSchema: exported)
    #expect(imported.entry(forKey: "server.port")?.maximum?.kind == .integer(65535))
  }

  @Test func checkWithTheSchemaRejectsWhatTheProgramRejects() async throws {
    try await withTemporaryDirectory { dir in
      let group = BoundedSettings.inMemory()
      let schema = group.store.schema.jsonSchema(title: "bounded")
      try write(String(decoding: try JSONFormat().serialize(schema), as: UTF8.self), to: dir + "/schema.json")
      try write("[server]\nport = 70000\nsampleRate = 1.5\nlevel = DEBUG\n", to: dir + "/app.ini")
      // The program: out-of-range values fall back with an error; DEBUG is .debug.
      let store = SettingsStore(layers: [FileLayer(scope: .system, files: [dir + "/app.ini"])])
      let settings = BoundedSettings(store: store)
      #expect(settings.port == 8080)
      #expect(settings.sampleRate == 0.5)
      #expect(settings.level == .debug)
      // The check says the same.
      let check = try await runConfigDump([dir + "/app.ini", "--schema", dir + "/schema.json", "--check"])
      #expect(check.status == 1)
      #expect(
        check.output.contains("app.ini:2:8: error: invalid value 70000 for server.port: must be in 1...65535")
      )
      #expect(
        check.output.contains(
          "app.ini:3:14: error: invalid value 1.5 for server.sampleRate: must be in 0.0...1.0"))
      #expect(!check.output.contains("server.level"))
      let dump = try await runConfigDump([
        dir + "/app.ini", "--schema", dir + "/schema.json", "--key", "server.level",
      ])
      #expect(dump.output == "debug\n")
    }
  }

  @Test func aCaseNameInAnotherLetterCaseIsThatCaseUnlessAmbiguous() throws {
    let store = SettingsStore.inMemory(try parse(#"{"server": {"level": "Warning"}}"#, as: JSONFormat()).root)
    #expect(BoundedSettings(store: store).level == .warning)
  }
}
