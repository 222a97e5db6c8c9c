import Observation
import Testing

@testable import Strata

struct LimitSettings: SettingsGroup {
  @Setting var maxBodyBytes = 1_048_576
}

struct ServerSettings: SettingsGroup {
  @Setting var host = "127.0.0.1"
  @Setting(help: "TCP port to listen on") var port = 8080
  @Setting(key: "max_connections") var maxConnections = 1024
  @Setting(traits: .secret) var apiToken = ""
  let limits = LimitSettings()
}

struct AdminServerSettings: SettingsGroup {
  static var section: String { "admin" }
  @Setting var host = "127.0.0.1"
  @Setting var enabled = false
  let limits = LimitSettings()
}

struct HTTPServerSettings: SettingsGroup {
  static var keyStyle: SettingKey.Style { .snakeCase }
  @Setting var idleTimeoutSeconds = 60
}

/// A table from dotted keys to values, every node with a file origin on its own line.
func fileTree(_ path: String, _ pairs: [(String, SettingValue.Kind)]) -> SettingValue {
  var root = SettingValue.emptyTable(origin: .file(path: path, line: 1, column: 1))
  for (line, (key, kind)) in pairs.enumerated() {
    root.set(SettingValue(kind, origin: .file(path: path, line: line + 2, column: 8)), at: key)
  }
  return root
}

@Suite struct SettingsGroupTests {
  @Test func sectionsKeysAndDiscovery() {
    let server = ServerSettings.inMemory()
    #expect(server.sectionPath == "server")
    #expect(
      server.allSettings.map(\.key) == [
        "server.host", "server.port", "server.max_connections", "server.apiToken",
        "server.limits.maxBodyBytes",
      ])
    let admin = AdminServerSettings.inMemory()
    #expect(admin.allSettings.map(\.key).first == "admin.host")
    #expect(admin.allSettings.map(\.key).contains("admin.enabled"))
    #expect(admin.allSettings.map(\.key).contains("admin.limits.maxBodyBytes"))
    #expect(HTTPServerSettings.inMemory().allSettings.map(\.key) == ["httpServer.idle_timeout_seconds"])
    #expect(defaultSection(for: "TLS") == "tls")
    #expect(defaultSection(for: "Settings") == "settings")
  }

  @Test func readsComeFromTheStoreWithOrigins() {
    let store = SettingsStore(layers: [
      StaticLayer(
        scope: .system,
        root: fileTree(
          "/etc/demo/demo.ini",
          [("server.port", .string("8443")), ("server.limits.maxBodyBytes", .string("10"))]))
    ])
    let server = ServerSettings(store: store)
    #expect(server.port == 8443)
    #expect(server.$port.origin == .file(path: "/etc/demo/demo.ini", line: 2, column: 8))
    #expect(server.host == "127.0.0.1")
    #expect(server.$host.origin == .codeDefault)
    #expect(server.limits.maxBodyBytes == 10)
    #expect(server.limits.$maxBodyBytes.key == "server.limits.maxBodyBytes")
    #expect(server.$port.help == "TCP port to listen on")
  }

  @Test func badValueFallsBackToTheLowerLayerWithADiagnostic() throws {
    let store = SettingsStore(layers: [
      StaticLayer(scope: .vendor, root: fileTree("/usr/lib/demo/demo.json", [("server.port", .integer(81))])),
      StaticLayer(scope: .system, root: fileTree("/etc/demo/demo.ini", [("server.port", .string("80a"))])),
    ])
    let server = ServerSettings(store: store)
    #expect(server.port == 81)
    #expect(server.$port.origin.path == "/usr/lib/demo/demo.json")
    let diagnostic = try #require(store.diagnostics.first)
    #expect(diagnostic.severity == .error)
    #expect(diagnostic.error.location == "/etc/demo/demo.ini:2:8")
  }

  @Test func writesPublishAndStreamFires() async throws {
    let server = ServerSettings.inMemory()
    var iterator = server.$port.values.makeAsyncIterator()
    #expect(await iterator.next() == 8080)
    try await server.$port.save(9000)
    #expect(server.port == 9000)
    #expect(server.$port.origin == .runtime)
    #expect(await iterator.next() == 9000)
    try await server.$host.save("x")  // another key: no emission for port
    try await server.$port.save(9001)
    #expect(await iterator.next() == 9001)
  }

  @Test func observationSeesExactlyTheSettingsRead() throws {
    let server = ServerSettings.inMemory()
    final class Flag: @unchecked Sendable { var fired = false }
    let flag = Flag()
    withObservationTracking {
      _ = server.port
    } onChange: {
      flag.fired = true
    }
    try server.$host.save("other")
    #expect(!flag.fired)
    try server.$port.save(1)
    #expect(flag.fired)
  }

  @Test func consistentSnapshotPinsOneGeneration() throws {
    let server = ServerSettings.inMemory()
    let (a, b) = try server.withConsistentSnapshot { group throws -> (Int, Int) in
      let first = group.port
      try group.store.setRuntimeValue(SettingValue(.integer(5), origin: .runtime), forKey: "server.port")
      return (first, group.port)
    }
    #expect(a == 8080 && b == 8080)
    #expect(server.port == 5)
  }

  @Test func secretsAreRedactedInIntrospection() {
    let store = SettingsStore.inMemory(fileTree("x", [("server.apiToken", .string("hunter2"))]))
    let server = ServerSettings(store: store)
    #expect(server.apiToken == "hunter2")
    let secret = server.allSettings.filter { $0.traits.contains(.secret) }
    #expect(secret.map(\.key) == ["server.apiToken"])
    #expect(secret.first?.valueText == "<redacted>")
    #expect(!server.allSettings.map(\.description).joined().contains("hunter2"))
    #expect(server.allSettings.filter { !$0.traits.contains(.secret) }.count == 4)
  }

  @Test func currentStoreIsTaskLocal() {
    let store = SettingsStore.inMemory(fileTree("x", [("server.port", .integer(1234))]))
    let server = SettingsStore.$current.withValue(store) { ServerSettings(store: nil) }
    #expect(server.port == 1234)
    #expect(server.store === store)
  }
}
