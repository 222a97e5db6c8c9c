import Strata
import StrataEtcd
import StrataTesting
import Testing

/// The server settings the etcd tests read.
struct EtcdServerSettings: SettingsGroup {
  @Setting var port = 0
  @Setting var host = ""
}

extension EtcdTests {
  /// A quick retry policy, so that the tests do not wait long for a server that comes back.
  static let quickRetry = EtcdRetry(initialDelay: .milliseconds(50), maximumDelay: .milliseconds(500))

  @Test func readsThePrefixIntoATreeWhoseOriginsNameKeyAndRevision() async throws {
    let server = try await EtcdServerProcess.started()
    defer { server.shutdown() }
    let etcd = server.connection
    let prefix = etcdTestPrefix("read")
    let portRevision = try await etcd.put(prefix + "server/port", "8080")
    try await etcd.put(prefix + "server/host", "0.0.0.0")
    try await etcd.put(prefix + "log/level", "debug")
    try await etcd.put(prefix + "tls.cert/path", "/etc/cert.pem")  // a name with a dot stays one name
    try await etcd.put("/strata-tests/read0", "just past the prefix")

    let layer = EtcdLayer(endpoints: [server.endpoint], prefix: prefix, retry: Self.quickRetry)
    #expect(layer.load(LoadContext()).documents.isEmpty)  // nothing before the first fetch
    let contents = await layer.fetch(LoadContext())
    #expect(contents.diagnostics.isEmpty, "\(contents.diagnostics)")
    let root = try #require(contents.documents.first?.root)
    #expect(root.table?.map(\.key) == ["log", "server", "tls.cert"])
    #expect(root.value(at: "server.port")?.kind == .string("8080"))
    #expect(root.value(at: SettingKey.join(["tls.cert", "path"]))?.kind == .string("/etc/cert.pem"))
    let origin = try #require(root.value(at: "server.port")?.origin)
    #expect(origin == .remote(source: "etcd", key: prefix + "server/port", revision: portRevision))
    #expect(origin.description == "etcd:\(prefix)server/port@rev \(portRevision)")
    #expect(layer.load(LoadContext()).documents.first?.root == root)  // load: the last contents

    // Through a store, typed: "8080" converts to the declared Int, as environment values do.
    let running = EtcdRunningStore(SettingsStore(layers: [layer]))
    defer { running.cancel() }
    #expect(await running.waitUntilReady())
    let settings = EtcdServerSettings(store: running.store, section: "server")
    #expect(settings.port == 8080)
    #expect(settings.host == "0.0.0.0")
    #expect(settings.$port.origin.description == "etcd:\(prefix)server/port@rev \(portRevision)")
    await running.stop()
  }

  @Test func jsonValuesBecomeScalarsArraysAndTables() async throws {
    let server = try await EtcdServerProcess.started()
    defer { server.shutdown() }
    let etcd = server.connection
    let prefix = etcdTestPrefix("json")
    try await etcd.put(prefix + "server", #"{"port": 8443, "tls": {"enabled": true}}"#)
    try await etcd.put(prefix + "server/host", #""10.0.0.1""#)
    try await etcd.put(prefix + "allowed", #"["a", "b"]"#)
    try await etcd.put(prefix + "sneaky", #"1, "x": 2"#)
    let layer = EtcdLayer(endpoints: [server.endpoint], prefix: prefix, valueFormat: .json)
    let contents = await layer.fetch(LoadContext())
    let root = try #require(contents.documents.first?.root)
    #expect(root.value(at: "server.port")?.kind == .integer(8443))
    #expect(root.value(at: "server.tls.enabled")?.kind == .bool(true))
    #expect(root.value(at: "server.host")?.kind == .string("10.0.0.1"))
    #expect(
      root.value(at: "allowed")?.kind
        == .array([.init(.string("a"), origin: .runtime), .init(.string("b"), origin: .runtime)]))
    #expect(root.value(at: "sneaky") == nil)
    let errors = contents.diagnostics.filter { $0.severity == .error }
    #expect(errors.count == 1)
    #expect(errors.first?.error.path == "etcd:\(prefix)sneaky")
    #expect(contents.documents.first?.isSecret == false)

    // A prefix of credentials: every value is a secret, redacted in dumps.
    try await etcd.put(prefix + "db/password", #""hunter2""#)
    let secrets = EtcdLayer(
      endpoints: [server.endpoint], prefix: prefix + "db/", valueFormat: .json, isSecret: true)
    let secret = await secrets.fetch(LoadContext())
    #expect(secret.documents.first?.isSecret == true)
    #expect(secret.documents.first?.root.value(at: "password")?.kind == .string("hunter2"))
    let store = SettingsStore(layers: [secrets])  // loads the layer's last contents
    defer { store.shutdown() }
    #expect(store.snapshot.isSecret(forKey: "password"))
  }

  @Test func conformsToTheLayerKitAgainstARealServer() async throws {
    let server = try await EtcdServerProcess.started()
    defer { server.shutdown() }
    let etcd = server.connection
    let prefix = etcdTestPrefix("kit")
    try await etcd.put(prefix + "server", #"{"port": 8080}"#)
    try await etcd.put(prefix + "limits", #"{"max": 1}"#)
    let layer = EtcdLayer(
      endpoints: [server.endpoint], prefix: prefix, valueFormat: .json, retry: Self.quickRetry)
    _ = await layer.fetch(LoadContext())
    let kit = LayerConformance(
      layer: layer,
      change: { try await etcd.put(prefix + "limits", #"{"max": 2}"#) },
      breakIt: { try await etcd.put(prefix + "limits", #"{"max": 3,}"#) })
    let failures = await kit.run(timeout: .seconds(30))
    #expect(failures.isEmpty, "\(failures)")
  }

  @Test func aValueThatDoesNotParseIsLeftOutReportedWithItsKeyAndTheLastGoodStays() async throws {
    let server = try await EtcdServerProcess.started()
    defer { server.shutdown() }
    let etcd = server.connection
    let prefix = etcdTestPrefix("bad")
    let badRevision = try await etcd.put(prefix + "server/port", "80a")
    try await etcd.put(prefix + "server/host", #""example.org""#)
    let layer = EtcdLayer(
      endpoints: [server.endpoint], prefix: prefix, valueFormat: .json, retry: Self.quickRetry)

    // At start, with no good value yet: left out, an error naming the key, the rest loads.
    let running = EtcdRunningStore(SettingsStore(layers: [layer]))
    defer { running.cancel() }
    #expect(await running.waitUntilReady())
    let settings = EtcdServerSettings(store: running.store, section: "server")
    #expect(running.store.snapshot.root.value(at: "server.port") == nil)
    #expect(settings.host == "example.org")
    let startError = try #require(running.store.diagnostics.first { $0.severity == .error }?.error)
    #expect(startError.path == "etcd:\(prefix)server/port")
    #expect(startError.line == 1 && startError.column == 3)
    #expect(startError.message.contains("revision \(badRevision)"))
    #expect(startError.message.contains("left out"))

    // A good value: used, and the error is gone (a recovered event).
    let goodRevision = try await etcd.put(prefix + "server/port", "8080")
    #expect(await etcdEventually { settings.port == 8080 })
    #expect(await etcdEventually { running.recoveries.contains { $0.path == "etcd:\(prefix)server/port" } })

    // A bad edit: the running value and its origin stay; a failed event names the key.
    let failuresBefore = running.failures.count
    let generation = running.store.snapshot.generation
    let brokenRevision = try await etcd.put(prefix + "server/port", "{")
    #expect(await etcdEventually { running.failures.count > failuresBefore })
    let failure = try #require(running.failures.last)
    #expect(failure.path == "etcd:\(prefix)server/port")
    #expect(
      failure.message.contains("revision \(brokenRevision)")
        && failure.message.contains("last good value is kept"))
    #expect(running.store.snapshot.generation > generation)
    print("etcd bad value: \(StoreEvent.failed(failure))")
    #expect(settings.port == 8080)
    #expect(
      settings.$port.origin == .remote(source: "etcd", key: prefix + "server/port", revision: goodRevision))

    // Fixed: the new value, and a recovered event.
    let recoveriesBefore = running.recoveries.count
    try await etcd.put(prefix + "server/port", "9090")
    #expect(await etcdEventually { settings.port == 9090 })
    #expect(await etcdEventually { running.recoveries.count > recoveriesBefore })
    await running.stop()
  }
}
