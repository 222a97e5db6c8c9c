import Strata
import Testing

/// Runs the samples of ReadingAndWriting.md on in-memory stores: they do what the article says.
@Suite struct ReadingAndWritingTests {
  @Test func byKeyReadsAndWritesThroughTheDeclaredSetting() throws {
    let store = SettingsStore.inMemory()
    let server = ReadingAndWriting.ServerSettings(store: store)
    try ReadingAndWriting.byKey(store)
    #expect(server.port == 9000)
    #expect(try store.value(forKey: "server.port", as: Int.self)?.value == 9000)
  }

  @Test func byKeyRefusesAValueTheDeclaredSettingRefuses() {
    let store = SettingsStore.inMemory()
    let server = ReadingAndWriting.ServerSettings(store: store)
    #expect(throws: StrataError.self) { try store.saveValue(70_000, forKey: "server.port") }
    #expect(throws: StrataError.self) { try store.saveValue("80a", forKey: "server.port") }
    #expect(server.port == 8080)
  }

  @Test func tenantGroupsBindUnderTheirOwnSections() throws {
    let store = SettingsStore.inMemory()
    let tenants = ReadingAndWriting.tenants(store)
    try tenants[0].$quota.save(5)
    #expect(tenants.map(\.quota) == [5, 100])
    #expect(tenants.map(\.$quota.key) == ["tenants.acme.quota", "tenants.globex.quota"])
  }

  @Test func anInMemoryGroupKeepsItsWritesAndReadsConsistently() throws {
    let server = try ReadingAndWriting.inMemory()
    #expect(server.port == 9000)
    #expect(ReadingAndWriting.consistent(server) == "127.0.0.1:9000")
  }
}
