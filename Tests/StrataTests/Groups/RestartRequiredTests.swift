import Testing

@testable import Strata

struct ListenerSettings: SettingsGroup {
  @Setting(traits: .restartRequired) var port = 8080
  @Setting(traits: [.restartRequired, .secret]) var certificatePassword = ""
  @Setting var greeting = "hello"
}

@Suite struct RestartRequiredTests {
  @Test func aRestartRequiredSettingKeepsItsRunningValueAndReportsTheChange() async throws {
    let listener = ListenerSettings.inMemory()
    #expect(listener.port == 8080)
    var changes = listener.$port.changes.makeAsyncIterator()
    try await listener.store.setRuntimeValue(
      SettingValue(.integer(9090), origin: .runtime), forKey: "listener.port")
    try await listener.store.setRuntimeValue(
      SettingValue(.string("hi"), origin: .runtime), forKey: "listener.greeting")
    #expect(listener.port == 8080)
    #expect(listener.greeting == "hi")
    #expect(
      listener.store.pendingRestarts == [
        SettingsStore.PendingRestart(
          key: "listener.port", runningValue: "8080", newValue: "9090", origin: .runtime)
      ])
    try await listener.store.setRuntimeValue(nil, forKey: "listener.port")
    listener.$port.purgeCache()
    #expect(listener.port == 8080)
    // No change is delivered for a setting that does not change while running.
    try await listener.store.setRuntimeValue(
      SettingValue(.integer(1), origin: .runtime), forKey: "listener.port")
    // Ending the stream flushes anything buffered first: nothing may have been delivered.
    listener.$port.box.finish()
    #expect(await changes.next() == nil)
  }

  @Test func pendingSecretsAreRedacted() throws {
    let listener = ListenerSettings.inMemory()
    _ = listener.certificatePassword
    try listener.store.setRuntimeValue(
      SettingValue(.string("s3cret"), origin: .runtime), forKey: "listener.certificatePassword")
    #expect(listener.store.pendingRestarts.map(\.newValue) == ["<redacted>"])
    #expect(!listener.store.pendingRestarts.description.contains("s3cret"))
  }
}
