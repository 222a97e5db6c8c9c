import Testing

@testable import Strata

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

enum DatabaseKind: String, Codable, Sendable {
  case postgres, sqlite
}

struct DatabaseSettings: SettingsGroup {
  @Setting(help: "Where the database is") var url: URL
  @Setting var kind: DatabaseKind
  @Setting var replicaURL: URL?
  @Setting var poolSize = 4
}

@Suite struct RequiredSettingsTests {
  @Test func aSettingWithoutADefaultIsRequiredAndAnOptionalOneIsNot() {
    let database = DatabaseSettings.inMemory()
    #expect(database.$url.isRequired)
    #expect(database.$url.defaultValue == nil)
    #expect(database.$kind.isRequired)
    #expect(!database.$replicaURL.isRequired)
    #expect(database.replicaURL == nil)
    #expect(!database.$poolSize.isRequired)
    #expect(database.$poolSize.defaultValue == 4)
  }

  @Test func everyMissingSettingIsReportedAtOnceWithItsFileVariableAndOption() throws {
    try withTemporaryDirectory { dir in
      try write("[database]\npoolSize = 8\n", to: dir + "/etc/demo/demo.ini")
      let store = SettingsStore(app: "demo", root: dir, environment: [:], arguments: [])
      let database = DatabaseSettings(store: store)
      #expect(store.missingRequiredKeys == ["database.url", "database.kind"])
      let missing = store.diagnostics.filter { $0.error.code == .missingRequired }
      #expect(missing.count == 2)
      #expect(missing.allSatisfy { $0.severity == .error })
      #expect(
        missing.map(\.description).contains(
          "error: required setting 'database.url' has no value; set it in /etc/demo/demo.ini, "
            + "/home/user/.config/demo/demo.{plist,json,ini,env,toml}, DEMO_DATABASE_URL or --database.url"))
      let error = try #require(throws: StrataError.self) { try store.requireAll() }
      #expect(error.code == .missingRequired)
      #expect(
        error.message.hasPrefix(
          "2 required settings have no value: 'database.url' (set it in /etc/demo/demo.ini"))
      #expect(error.message.contains("; 'database.kind' (set it in "))
      #expect(error.message.contains("DEMO_DATABASE_KIND or --database.kind)"))
      #expect(throws: StrataError.self) { try database.$url.require() }
      #expect(database.$url.origin == .codeDefault)
      #expect(database.allSettings.first?.valueText == "<missing>")
      #expect(database.poolSize == 8)
    }
  }

  @Test func suppliedSettingsPassTheStartUpCheck() throws {
    let store = SettingsStore(layers: [
      EnvironmentLayer(prefix: "DEMO", variables: ["DEMO_DATABASE_URL": "postgres://db/app"]),
      CommandLineLayer(arguments: ["--database.kind", "sqlite"]),
    ])
    let database = DatabaseSettings(store: store)
    try store.requireAll()
    #expect(database.url == URL(string: "postgres://db/app"))
    #expect(database.kind == .sqlite)
    #expect(try database.$kind.require() == .sqlite)
    #expect(store.diagnostics.allSatisfy { $0.error.code != .missingRequired })
  }

  @Test func aValueThatDoesNotConvertLeavesTheSettingMissing() throws {
    let store = SettingsStore(layers: [CommandLineLayer(arguments: ["--database.kind=oracle"])])
    let database = DatabaseSettings(store: store)
    #expect(store.missingRequiredKeys.contains("database.kind"))
    let codes = store.diagnostics.map(\.error.code)
    #expect(codes.contains(.invalidValue))
    #expect(codes.contains(.missingRequired))
    #expect(throws: StrataError.self) { try database.$kind.require() }
  }

  @Test func removingARunningRequiredValueKeepsItAndSaysSo() async throws {
    let store = SettingsStore.inMemory()
    let database = DatabaseSettings(store: store)
    try await store.setRuntimeValue(
      SettingValue(.string("sqlite"), origin: .runtime), forKey: "database.kind")
    #expect(database.kind == .sqlite)
    var events = store.events.makeAsyncIterator()
    // The subscription begins with the problems standing (database.url is missing).
    guard case .diagnosed(let standing)? = await events.next() else {
      Issue.record("expected the standing problem first")
      return
    }
    #expect(standing.error.code == .missingRequired)
    try await store.setRuntimeValue(nil, forKey: "database.kind")
    #expect(database.kind == .sqlite)
    guard case .rejected(let error)? = await events.next() else {
      Issue.record("expected a rejected event")
      return
    }
    #expect(error.code == .missingRequired)
    #expect(error.message.hasSuffix("the running value is kept"))
  }
}

/// The bare form, `@Setting var name: Type`, with no arguments at all.
struct BareRequiredSettings: SettingsGroup {
  @Setting var token: String
  @Setting var timeout: Duration?
}

@Suite struct BareRequiredSettingsTests {
  @Test func theBareFormIsRequiredUnlessOptional() {
    let group = BareRequiredSettings.inMemory()
    #expect(group.$token.isRequired)
    #expect(!group.$timeout.isRequired)
    #expect(group.timeout == nil)
    #expect(group.store.missingRequiredKeys == ["bareRequired.token"])
  }

  @Test func readingOneThatNeverHadAValueStopsTheProgramWithWhereToSetIt() async {
    let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
      let store = SettingsStore(layers: [EnvironmentLayer(prefix: "DEMO", variables: [:])])
      let group = BareRequiredSettings(store: store)
      _ = group.token
    }
    let errors = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
    #expect(
      errors.contains(
        "required setting 'bareRequired.token' has no value; set it in DEMO_BARE_REQUIRED_TOKEN"))
    #expect(errors.contains("try store.requireAll()"))
  }
}

/// A `RawRepresentable` type that is not `Codable`.
struct Shard: RawRepresentable, Sendable, Equatable {
  var rawValue: Int
}

/// Every declaration form without a default.
struct DeclarationFormsSettings: SettingsGroup {
  @Setting(key: "database_kind") var kind: DatabaseKind
  @Setting() var shard: Shard
  @Setting(help: "A replica to read from") var replicaURL: URL?
}

@Suite struct DeclarationFormsTests {
  @Test func explicitFormsAreRequiredUnlessOptionalAndDecodeTheirTypes() throws {
    let store = SettingsStore(layers: [
      CommandLineLayer(arguments: [
        "--declarationForms.database_kind=postgres", "--declarationForms.shard", "3",
      ])
    ])
    let group = DeclarationFormsSettings(store: store)
    #expect(group.$kind.isRequired && group.$shard.isRequired && !group.$replicaURL.isRequired)
    try store.requireAll()
    #expect(group.kind == .postgres)
    #expect(group.shard == Shard(rawValue: 3))
    #expect(group.replicaURL == nil)
    #expect(group.$replicaURL.defaultValue == .some(nil))
  }
}
