import Testing

@testable import Strata

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

struct LifetimeServerSettings: SettingsGroup {
  @Setting var port = 8080
}

struct LifetimePoolSettings: SettingsGroup {
  @Setting var dsn: String
}

struct LifetimeAppSettings: SettingsGroup {
  @Setting var name = "demo"
  let pool = LifetimePoolSettings()
}

/// `requireAll()` that has nothing to check, and groups released before it, say so.
@Suite struct GroupLifetimeTests {
  @Test func requireAllBeforeAnyGroupIsMadeThrowsInsteadOfCheckingNothing() throws {
    let store = SettingsStore(layers: [CommandLineLayer(arguments: ["--database.poolSize", "8"])])
    let error = try #require(throws: StrataError.self) { try store.requireAll() }
    #expect(error.code == .misuse)
    #expect(
      error.message
        == "requireAll() checked nothing: no settings group is declared on this store yet; make the groups "
        + "first and keep them (`let database = DatabaseSettings(store: store)`), then call requireAll()")
    // A group dropped after that failed check is still a start-up mistake.
    do { _ = LifetimeServerSettings(store: store) }
    #expect(store.releasedGroups.map(\.typeName) == ["LifetimeServerSettings"])
    // Made afterwards, as the articles now show, the group is checked.
    let database = DatabaseSettings(store: store)
    #expect(throws: StrataError.self) { try store.requireAll() }
    #expect(database.poolSize == 8)
  }

  @Test func aGroupMadeAndDroppedIsNamedByRequireAllAndTheDiagnostics() throws {
    let store = SettingsStore(layers: [CommandLineLayer(arguments: ["--database.kind", "sqlite"])])
    do { _ = DatabaseSettings(store: store) }
    #expect(store.declaredKeys.isEmpty)
    let error = try #require(throws: StrataError.self) { try store.requireAll() }
    #expect(error.code == .misuse)
    #expect(
      error.message
        == "requireAll() checked nothing: every settings group made on this store was released before it "
        + "(DatabaseSettings (section 'database')); keep it for as long as the program reads it: "
        + "`let database = DatabaseSettings(store: store)`, then call requireAll()")
    let warnings = store.diagnostics.filter { $0.error.code == .misuse }
    #expect(warnings.map(\.severity) == [.warning])
    #expect(
      warnings.first?.description
        == "warning: DatabaseSettings (section 'database') was released before requireAll(), so its settings "
        + "are no longer declared: their keys read as unknown and nothing reloads them; keep it for as long "
        + "as the program reads it: `let database = DatabaseSettings(store: store)`")
    // The explanation comes before the problems it explains.
    #expect(store.diagnostics.first?.error.code == .misuse)
  }

  @Test func aDroppedGroupsRequiredKeysStillCountWhileAnotherGroupLives() throws {
    let store = SettingsStore(layers: [CommandLineLayer(arguments: ["--database.kind", "sqlite"])])
    let server = LifetimeServerSettings(store: store)
    do { _ = DatabaseSettings(store: store) }
    let error = try #require(throws: StrataError.self) { try store.requireAll() }
    #expect(error.code == .missingRequired)
    // `kind` is set, so only `url` is missing; it names the group it came from and where to set it.
    #expect(
      error.message
        == "1 required setting has no value: 'database.url' (declared by DatabaseSettings, released before "
        + "requireAll(); set it in --database.url)")
    #expect(server.port == 8080)
  }

  @Test func aDroppedGroupWhoseRequiredKeysAreSetPassesButIsStillReported() throws {
    let store = SettingsStore(layers: [
      CommandLineLayer(arguments: ["--database.kind", "sqlite", "--database.url", "postgres://db/app"])
    ])
    let server = LifetimeServerSettings(store: store)
    do { _ = DatabaseSettings(store: store) }
    try store.requireAll()
    #expect(store.diagnostics.filter { $0.error.code == .misuse }.count == 1)
    // Made again, it reads its values and the warning is gone.
    let database = DatabaseSettings(store: store)
    #expect(database.kind == .sqlite)
    #expect(store.diagnostics.allSatisfy { $0.error.code != .misuse })
    #expect(server.port == 8080)
  }

  @Test func aDroppedGroupsKeyInTheEnvironmentCountsAsSet() throws {
    let store = SettingsStore(layers: [
      EnvironmentLayer(prefix: "DEMO", variables: ["DEMO_DATABASE_URL": "postgres://db/app"]),
      CommandLineLayer(arguments: ["--database.kind", "sqlite"]),
    ])
    let server = LifetimeServerSettings(store: store)
    do { _ = DatabaseSettings(store: store) }
    // No live setting declares `database.url`, so the environment layer does not map DEMO_DATABASE_URL
    // to it; the check still finds the variable the group would read.
    try store.requireAll()
    #expect(server.port == 8080)
  }

  @Test func aDroppedParentIsOneNoteWithItsNestedGroupsRequiredKeys() throws {
    let store = SettingsStore.inMemory()
    let server = LifetimeServerSettings(store: store)
    do { _ = LifetimeAppSettings(store: store) }
    let notes = store.releasedGroups
    #expect(notes.map(\.typeName) == ["LifetimeAppSettings"])
    #expect(notes.first?.requiredKeys == ["lifetimeApp.pool.dsn"])
    let error = try #require(throws: StrataError.self) { try store.requireAll() }
    #expect(
      error.message.contains("'lifetimeApp.pool.dsn' (declared by LifetimeAppSettings, released before"))
    #expect(server.port == 8080)
  }

  @Test func groupsReleasedAfterRequireAllAreNotMistakes() throws {
    let store = SettingsStore.inMemory()
    let server = LifetimeServerSettings(store: store)
    try store.requireAll()
    // Groups made and released at run time (tenants) are not start-up mistakes.
    for tenant in ["acme", "globex"] {
      _ = DatabaseSettings(store: store, section: "tenants.\(tenant)")
    }
    #expect(store.diagnostics.isEmpty)
    try store.requireAll()
    #expect(server.port == 8080)
  }

  @Test func theStoreKeepsABoundedNumberOfNotes() {
    let store = SettingsStore.inMemory()
    for index in 0..<(ReleasedGroup.limit * 3) {
      _ = DatabaseSettings(store: store, section: "db\(index)")
    }
    #expect(store.releasedGroups.count == ReleasedGroup.limit)
    #expect(store.diagnostics.filter { $0.error.code == .misuse }.count == ReleasedGroup.limit)
  }

  @Test func aGroupWithoutSettingsIsNotNoted() throws {
    let store = SettingsStore.inMemory()
    do { _ = EmptySettings(store: store) }
    #expect(store.releasedGroups.isEmpty)
    #expect(throws: StrataError.self) { try store.requireAll() }
  }
}

/// A group that declares no setting.
struct EmptySettings: SettingsGroup {}
