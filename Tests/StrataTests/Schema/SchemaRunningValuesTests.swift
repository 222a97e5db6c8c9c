import Testing

@testable import Strata

/// A schema's settings declared in a store keep their running value over a rejected edit, as the
/// program's own settings do: what `config-dump --watch --schema` shows.
@Suite struct SchemaRunningValuesTests {
  private let schema = SettingsSchema(entries: [
    .init(
      key: "server.maxConnections", type: .integer, typeName: "Int",
      defaultValue: SettingValue(.integer(1024), origin: .codeDefault)),
    .init(
      key: "server.level", type: .string(format: nil), typeName: "Level",
      defaultValue: SettingValue(.string("info"), origin: .codeDefault), allowedValues: ["info", "debug"]),
  ])

  private func store() -> SettingsStore {
    SettingsStore.inMemory(
      fileTree("/etc/a.ini", [("server.maxConnections", .integer(4096)), ("server.level", .string("debug"))]))
  }

  @Test func aRejectedEditKeepsTheLastGoodValue() throws {
    let store = store()
    let settings = SchemaRunningValues(schema: schema, store: store)
    #expect(settings.keptValues.isEmpty)
    try store.setRuntimeValue(SettingValue(.integer(2000), origin: .runtime), forKey: "server.maxConnections")
    #expect(settings.keptValues.isEmpty)
    try store.setRuntimeValue(SettingValue(.string("80a"), origin: .runtime), forKey: "server.maxConnections")
    try store.setRuntimeValue(SettingValue(.string("loud"), origin: .runtime), forKey: "server.level")
    let kept = settings.keptValues
    #expect(kept["server.maxConnections"]?.kind == .integer(2000))
    #expect(kept["server.maxConnections"]?.origin == .runtime)
    #expect(kept["server.level"]?.kind == .string("debug"))
    // The typed view alone falls back to the layer below (the file's 4096); with the kept values on top
    // it is the program's 2000.
    let applied = schema.applied(to: store.snapshot)
    #expect(applied.value(forKey: "server.maxConnections")?.kind == .integer(4096))
    let view = settings.holdingKeptValues(in: applied)
    #expect(view.value(forKey: "server.maxConnections")?.kind == .integer(2000))
    #expect(view.value(forKey: "server.level")?.kind == .string("debug"))
    // A good edit is taken, and nothing is kept any more.
    try store.setRuntimeValue(SettingValue(.integer(200), origin: .runtime), forKey: "server.maxConnections")
    #expect(settings.keptValues["server.maxConnections"] == nil)
    #expect(settings.keptValues.count == 1)
  }

  @Test func aBadValueAtStartFallsBackAsInTheProgram() {
    let store = SettingsStore.inMemory(fileTree("/etc/a.ini", [("server.maxConnections", .string("80a"))]))
    let settings = SchemaRunningValues(schema: schema, store: store)
    // Nothing ran before: there is no last good value to keep, so the default applies (with the error).
    #expect(settings.keptValues.isEmpty)
    #expect(
      store.diagnostics.contains { $0.error.message.hasPrefix("expected Int for server.maxConnections") })
  }

  @Test func releasingTheSettingsUndeclaresThem() {
    let store = store()
    do {
      let settings = SchemaRunningValues(schema: schema, store: store)
      #expect(store.schema.entries.count == 2)
      withExtendedLifetime(settings) {}
    }
    #expect(store.schema.entries.isEmpty)
  }
}
