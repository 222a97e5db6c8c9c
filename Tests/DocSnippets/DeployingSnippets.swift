import Strata

/// Deploying.md.
enum Deploying {
  struct ServerSettings: SettingsGroup {
    @Setting var port = 8080
  }

  /// The program's own work.
  static func serve(_ server: ServerSettings, _ database: DatabaseSettings) async {
    print(server.port, database.poolSize)
  }

  static func main() async throws {
    // snippet: main
    SettingsStore.catchHangupSignals()  // first: a SIGHUP from now on is queued, never fatal
    let store = SettingsStore(app: "demo")
    let server = ServerSettings(store: store)  // every group of the program,
    let database = DatabaseSettings(store: store)
    try store.requireAll()  // then stop at once, listing every missing required setting
    await withDiscardingTaskGroup { group in
      group.addTask { await store.run(reloadOnHangup: true, notifySystemd: true) }
      await serve(server, database)  // the program's work; when it ends, so does the watch
      group.cancelAll()
    }
    // snippet: end
  }

  static func profile(environment: [String: String]) -> SettingsStore {
    // snippet: profile
    // DEMO_PROFILE comes from the unit or the pod; a program may choose a default itself.
    var environment = environment
    if environment["DEMO_PROFILE"] == nil { environment["DEMO_PROFILE"] = "development" }
    let store = SettingsStore(app: "demo", environment: environment)
    // snippet: end
    return store
  }

  static func kubernetes() -> SettingsStore {
    // snippet: kubernetes
    var layers = StandardLayout(app: "demo").layers
    layers.insert(KeyPerFileLayer(directory: "/run/secrets/demo", keyPrefix: "database"), at: 2)
    let store = SettingsStore(layers: layers)
    // snippet: end
    return store
  }
}
