import Strata

/// GettingStarted.md.
enum GettingStarted {
  // snippet: declare
  struct ServerSettings: SettingsGroup {  // section "server"
    @Setting(help: "Address to listen on") var host = "127.0.0.1"
    @Setting(traits: .restartRequired, validation: .range(1...65535)) var port = 8080
    @Setting(key: "allowed_origins") var allowedOrigins: [String] = []
    @Setting var requestTimeout: Duration = .seconds(30)  // "30s", "250ms", "1h30m" in files
    @Setting(traits: .secret) var adminToken = ""  // redacted in every text
    let limits = LimitSettings()  // a nested group: "server.limits"
  }
  // snippet: end

  static func makeStore() throws -> ServerSettings {
    // snippet: store
    let store = SettingsStore(app: "demo")  // vendor, /etc (+ conf.d), ~/.config, DEMO_* variables
    let server = ServerSettings(store: store)  // every group of the program first,
    try store.requireAll()  // then every missing required setting, in one error
    // snippet: end
    return server
  }

  static func read(_ server: ServerSettings) throws {
    // snippet: read
    print(server.port)  // 8443
    print(server.$port.origin)  // /etc/demo/demo.ini:6:8
    print(server.$port.shadowed)  // the values it hides: 8080 from /usr/lib/demo/demo.plist:11:3
    print(server.$port.environmentName ?? "none")  // DEMO_SERVER_PORT
    let (host, port) = server.withConsistentSnapshot { ($0.host, $0.port) }  // from one generation
    print("\(host):\(port)")
    try server.$host.save("0.0.0.0")  // written to the user file atomically; throws if refused
    // snippet: end
  }

  static func keepCurrent(_ store: SettingsStore, _ server: ServerSettings) async {
    // snippet: current
    await withDiscardingTaskGroup { group in
      group.addTask { await store.run(reloadOnHangup: true) }  // watch until cancelled
      group.addTask { for await event in store.events { print(event) } }  // reloaded, failed(error), …
      for await origins in server.$allowedOrigins.changes {  // typed: only when the value changes
        print("allowed origins: \(origins)")
      }
      group.cancelAll()  // the values end with store.shutdown(); then so do the watch and the events
    }
    // snippet: end
  }
}
