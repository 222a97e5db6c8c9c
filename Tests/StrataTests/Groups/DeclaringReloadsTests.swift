import Testing

@testable import Strata

struct LateSettings: SettingsGroup {
  @Setting var port = 8080
  @Setting var host = "localhost"
}

struct QuietSettings: SettingsGroup {
  @Setting var retries = 3
}

struct LateTLSSettings: SettingsGroup {
  @Setting var tls = TLSConfig()
}

/// Declaring a group loads the layers that read the declared keys again only when the new keys can
/// change what they load: a variable or an option that names one of them (or a field of one), or one
/// that matched no key before. Otherwise no layer loads and no generation is made.
@Suite struct DeclaringReloadsTests {
  private func store(variables: [String: String] = [:], arguments: [String] = []) -> SettingsStore {
    SettingsStore(layers: [
      EnvironmentLayer(prefix: "APP", variables: variables), CommandLineLayer(arguments: arguments),
    ])
  }

  @Test func keysNoVariableOrOptionNamesMakeNoGeneration() {
    let store = store(
      variables: ["APP_LATE_PORT": "9090", "HOME": "/root"], arguments: ["--late.host", "a"])
    let late = LateSettings(store: store)
    let loads = store.state.withLock(\.stackLoads)
    let generation = store.snapshot.generation
    let quiet = QuietSettings(store: store)
    #expect(quiet.retries == 3)
    // Neither layer was loaded again, nor the snapshot merged.
    #expect(store.state.withLock(\.stackLoads) == loads)
    #expect(store.snapshot.generation == generation)
    // What was loaded before still stands.
    #expect(late.port == 9090)
    #expect(late.host == "a")
    #expect(store.diagnostics.isEmpty)
  }

  @Test func aVariableThatNamesANewKeyIsReadWhenTheKeyIsDeclared() throws {
    let store = store(variables: ["APP_QUIET_RETRIES": "7"])
    let late = LateSettings(store: store)
    #expect(late.port == 8080)
    let loads = store.state.withLock(\.stackLoads)
    let generation = store.snapshot.generation
    let quiet = QuietSettings(store: store)
    #expect(store.state.withLock(\.stackLoads) == loads + 1)
    #expect(quiet.retries == 7)
    #expect(quiet.$retries.origin == .environment(variable: "APP_QUIET_RETRIES"))
    #expect(store.snapshot.generation > generation)
  }

  @Test func aVariableThatNamesAFieldOfANewStructSettingIsReadWhenItIsDeclared() {
    let store = store(variables: ["APP_LATE_TLS_TLS_ENABLED": "true"])
    _ = QuietSettings(store: store)
    let tls = LateTLSSettings(store: store)
    #expect(tls.tls.enabled)
    #expect(tls.tls.keyPath == TLSConfig().keyPath)
  }

  @Test func anUnknownVariableIsReadAgainSoItsWarningFollowsTheDeclarations() {
    let store = store(variables: ["APP_LATE_HSOT": "example.com"])
    _ = QuietSettings(store: store)
    let before = store.snapshot.diagnostics.map(\.error.message)
    #expect(
      before.contains { $0.contains("APP_LATE_HSOT matches no known setting") && !$0.contains("did you") })
    let generation = store.snapshot.generation
    _ = LateSettings(store: store)
    #expect(store.snapshot.generation > generation)
    let after = store.snapshot.diagnostics.map(\.error.message)
    #expect(after.contains { $0.contains("APP_LATE_HSOT") && $0.contains("did you mean APP_LATE_HOST?") })
  }

  @Test func anOptionThatNamesANewKeyIsReadWhenTheKeyIsDeclared() {
    let store = store(arguments: ["--quiet.retries", "5"])
    let late = LateSettings(store: store)
    #expect(late.port == 8080)
    let quiet = QuietSettings(store: store)
    #expect(quiet.retries == 5)
    #expect(quiet.$retries.origin == .commandLine(option: "--quiet.retries"))
  }

  @Test func theLayersSayWhenNewKeysCannotChangeThem() {
    let layer = EnvironmentLayer(prefix: "APP", variables: ["APP_SERVER_PORT": "1", "APPX_Y": "2"])
    let last = layer.load(LoadContext(declaredKeys: ["server.port"]))
    func mayChange(declaring key: String) -> Bool {
      layer.mayChange(
        declaring: [key], declared: DeclaredKeys(["server.port", key]), options: ParseOptions(), last: last)
    }
    #expect(!mayChange(declaring: "db.host"))
    #expect(mayChange(declaring: "server.port"))
    // A struct setting: APP_SERVER_PORT may be its field `port`.
    #expect(mayChange(declaring: "server"))
    #expect(!mayChange(declaring: "serv"))
    #expect(!mayChange(declaring: "y"))
  }
}
