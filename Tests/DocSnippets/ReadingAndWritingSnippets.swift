import Strata

/// ReadingAndWriting.md; `ReadingAndWritingTests` runs these.
enum ReadingAndWriting {
  struct ServerSettings: SettingsGroup {
    @Setting var host = "127.0.0.1"
    @Setting(validation: .range(1...65535)) var port = 8080
  }

  // snippet: tenant-group
  struct TenantSettings: SettingsGroup {
    @Setting var quota = 100
  }
  // snippet: end

  static func byKey(_ store: SettingsStore) throws(StrataError) {
    // snippet: by-key
    if let port = try store.value(forKey: "server.port", as: Int.self) {
      print("\(port.value) from \(port.origin)")  // 8443 from /etc/demo/demo.ini:6:8
    }
    try store.saveValue(9000, forKey: "server.port")  // through the declared setting's type and checks
    // snippet: end
  }

  static func tenants(_ store: SettingsStore) -> [TenantSettings] {
    // snippet: tenants
    let acme = TenantSettings(store: store, section: "tenants.acme")  // tenants.acme.quota
    let globex = TenantSettings(store: store, section: "tenants.globex")  // tenants.globex.quota
    // snippet: end
    return [acme, globex]
  }

  static func inMemory() throws -> ServerSettings {
    // snippet: in-memory
    let server = ServerSettings(store: .inMemory())  // code defaults only: no file, no environment
    try server.$port.save(9000)  // kept in memory
    // snippet: end
    return server
  }

  static func consistent(_ server: ServerSettings) -> String {
    // snippet: consistent
    let address = server.withConsistentSnapshot { "\($0.host):\($0.port)" }  // one generation
    // snippet: end
    return address
  }
}
