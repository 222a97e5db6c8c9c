import AsyncHTTPClient
import Foundation
import Strata
import StrataEtcd
import Testing

/// A server (in memory) whose client URL requires a client certificate of `certificates`' authority,
/// started, with `server/port` set to 1 below `prefix`.
private func startedRequiringClientCertificates(
  _ certificates: EtcdTestCertificates, portBelow prefix: String
) async throws -> EtcdServerProcess {
  let server = try EtcdServerProcess(
    inMemory: true, tls: EtcdServerProcess.TLS(certificates: certificates, requiresClientCertificate: true))
  do {
    try await server.start()
    try await server.connection.put(prefix + "server/port", "1")
  } catch {
    server.shutdown()
    throw error
  }
  return server
}

@Suite struct EtcdGRPCAddressTests {
  @Test func theLayerTalksGRPCUnlessGivenAClientOfItsOwnWhichOnlyTheGatewayUses() {
    #expect(EtcdLayer(prefix: "/app/").transport == .grpc)
    #expect(EtcdLayer(prefix: "/app/", client: EtcdLayer.sharedClient).transport == .grpc)
    #expect(EtcdLayer(prefix: "/app/", client: .shared).transport == .gateway)
    #expect(EtcdLayer(prefix: "/app/", client: .shared, transport: .grpc).transport == .grpc)
    #expect(EtcdLayer(prefix: "/app/", transport: .gateway).transport == .gateway)
  }

  @Test func clientURLsBecomeHostPortAndSecurity() {
    #expect(
      EtcdGRPCAddress("http://127.0.0.1:2379")
        == EtcdGRPCAddress(host: "127.0.0.1", port: 2379, isSecure: false))
    #expect(
      EtcdGRPCAddress("https://etcd-0.example:23790/")
        == EtcdGRPCAddress(host: "etcd-0.example", port: 23790, isSecure: true))
    #expect(EtcdGRPCAddress("https://[::1]:2379") == EtcdGRPCAddress(host: "::1", port: 2379, isSecure: true))
    #expect(
      EtcdGRPCAddress("http://10.0.0.5") == EtcdGRPCAddress(host: "10.0.0.5", port: 2379, isSecure: false))
    #expect(EtcdGRPCAddress("10.0.0.5:2379") == nil)
    #expect(EtcdGRPCAddress("http://:2379") == nil)
    #expect(EtcdGRPCAddress("http://host:99999") == nil)
    #expect(EtcdGRPCAddress("http://[::1") == nil)
  }
}

extension EtcdTests {
  @Test func overGRPCTheLayerReadsWhatTheGatewayReadsAndFollowsThePrefix() async throws {
    let server = try await EtcdServerProcess.started(inMemory: true)
    defer { server.shutdown() }
    let etcd = server.connection
    let prefix = etcdTestPrefix("grpc")
    try await etcd.put(prefix + "server/port", "1")
    try await etcd.put(prefix + "server/host", "0.0.0.0")
    try await etcd.put(prefix + "text", Array("café ✓\n".utf8))
    for index in 0..<300 { try await etcd.put(prefix + "many/key\(index)", "value-\(index)") }
    try await etcd.put("/strata-tests/grpc0", "just past the prefix")

    // The same keys, values and revisions as the gateway's answer.
    let gateway = try await etcd.range(prefix: Array(prefix.utf8))
    let grpcConnection = EtcdConnection(
      client: .shared, endpoint: server.endpoint, requestTimeout: .seconds(10), transport: .grpc)
    let grpc = try await grpcConnection.range(prefix: Array(prefix.utf8))
    #expect(grpc.header == gateway.header)
    #expect(grpc.header.cluster != 0 && grpc.header.revision > 0)
    #expect(grpc.entries.map(\.key) == gateway.entries.map(\.key))
    #expect(grpc.entries.map(\.value) == gateway.entries.map(\.value))
    #expect(grpc.entries.map(\.modRevision) == gateway.entries.map(\.modRevision))
    #expect(grpc.entries.count == 303)

    // A store over it: ready with the keys, then following a put (the watch is the gateway's).
    let layer = EtcdLayer(
      endpoints: [server.endpoint], prefix: prefix, transport: .grpc, retry: Self.quickRetry)
    #expect(layer.transport == .grpc)
    let running = EtcdRunningStore(SettingsStore(layers: [layer]))
    defer { running.cancel() }
    let settings = EtcdServerSettings(store: running.store, section: "server")
    #expect(await running.waitUntilReady())
    #expect(settings.port == 1)
    #expect(running.text("many.key299") == "value-299")
    #expect(await etcdEventually { layer.watchStatus.isConnected })
    try await etcd.put(prefix + "server/port", "2")
    #expect(await etcdEventually { settings.port == 2 })
    #expect(running.failures.isEmpty)
    #expect(layer.status.reads == 1)
    await running.stop()
  }

  @Test func overGRPCAnUnreachableMemberIsLeftForTheNextAndNoneReachableIsNamed() async throws {
    let server = try await EtcdServerProcess.started(inMemory: true)
    defer { server.shutdown() }
    let prefix = etcdTestPrefix("grpc-failover")
    try await server.connection.put(prefix + "server/port", "1")
    let dead = try EtcdServerProcess(inMemory: true)  // its ports, nobody listening
    defer { dead.shutdown() }

    let layer = EtcdLayer(
      endpoints: [dead.endpoint, server.endpoint], prefix: prefix, transport: .grpc, retry: Self.quickRetry)
    #expect(await fetchedPort(layer) == "1")

    let none = EtcdLayer(
      endpoints: [dead.endpoint], prefix: prefix, transport: .grpc, requestTimeout: .seconds(5))
    let began = ContinuousClock.now
    let error = try #require(await fetchError(none))
    #expect(error.message.contains(dead.endpoint))
    #expect(ContinuousClock.now - began < .seconds(5))  // refused at once, not after the timeout
  }

  /// A read, or a store, cancelled at any moment (before its call connects, while it connects, once
  /// it watches) ends, every time: a gRPC call cancelled as it began waited for a connection that was
  /// never made (the connections were cancelled with it), so a service stopped during its start-up
  /// never stopped.
  @Test func overGRPCAReadOrAStoreCancelledAtAnyMomentEnds() async throws {
    let server = try await EtcdServerProcess.started(inMemory: true)
    defer { server.shutdown() }
    let prefix = etcdTestPrefix("grpc-cancel")
    try await server.connection.put(prefix + "server/port", "1")
    // A read cancelled at any moment (before, while and after it connects) ends.
    let connection = EtcdConnection(
      client: .shared, endpoint: server.endpoint, requestTimeout: .seconds(10), transport: .grpc)
    for round in 0..<400 {
      let ended = EtcdShared(false)
      let reading = Task {
        _ = try? await connection.range(prefix: Array(prefix.utf8))
        ended.update { $0 = true }
      }
      let at = ContinuousClock.now + .microseconds(5 * (round % 200))
      while ContinuousClock.now < at { await Task.yield() }
      reading.cancel()
      #expect(await etcdEventually(timeout: .seconds(15)) { ended.value }, "read \(round) did not end")
      guard ended.value else { return }
    }
    let dead = try EtcdServerProcess(inMemory: true)  // its ports, nobody listening
    defer { dead.shutdown() }
    for round in 0..<300 {
      let endpoints = round % 20 == 19 ? [dead.endpoint] : [server.endpoint]
      let store = SettingsStore(
        layers: [EtcdLayer(endpoints: endpoints, prefix: prefix, transport: .grpc, retry: Self.quickRetry)])
      let ready = EtcdShared<ContinuousClock.Instant?>(nil)
      let ended = EtcdShared(false)
      let running = Task {
        await store.run(onReady: { ready.update { $0 = .now } })
        ended.update { $0 = true }
      }
      if round % 4 != 0 {
        // Once it is ready, after 0 to 2 ms: its watch opens meanwhile.
        let deadline = ContinuousClock.now + .seconds(15)
        while ready.value == nil && ContinuousClock.now < deadline { await Task.yield() }
        let at = (ready.value ?? .now) + .microseconds(20 * (round % 100))
        while ContinuousClock.now < at { await Task.yield() }
      }
      running.cancel()
      #expect(await etcdEventually(timeout: .seconds(15)) { ended.value }, "round \(round) did not end")
      guard ended.value else { return }  // a run that hangs would hang every round after it
      store.shutdown()
    }
  }

  /// The watch's periodic check goes over the watch's own connection: checks every 100 ms for two
  /// seconds open no connection (each used to open one, a TCP connection every `checkInterval` for
  /// each host of a fleet).
  @Test func overGRPCTheWatchsChecksOpenNoConnection() async throws {
    let server = try await EtcdServerProcess.started(inMemory: true)
    defer { server.shutdown() }
    let prefix = etcdTestPrefix("grpc-checks")
    try await server.connection.put(prefix + "server/port", "1")
    let port = try #require(server.endpoint.split(separator: ":").last.flatMap { Int($0) })
    let layer = EtcdLayer(
      endpoints: [server.endpoint], prefix: prefix, transport: .grpc, retry: Self.quickRetry,
      checkInterval: .milliseconds(100))
    let running = EtcdRunningStore(SettingsStore(layers: [layer]))
    defer { running.cancel() }
    #expect(await running.waitUntilReady())
    #expect(await etcdEventually { layer.watchStatus.isConnected })
    let before = clientSockets(toPort: port)
    var contacts: Set<ContinuousClock.Instant> = []
    let end = ContinuousClock.now + .seconds(2)
    while ContinuousClock.now < end {
      if let contact = layer.status.lastContact { contacts.insert(contact) }
      try await Task.sleep(for: .milliseconds(20))
    }
    let after = clientSockets(toPort: port)
    #expect(contacts.count >= 8)  // the checks ran, and were answered
    // Sockets closed in the window stay listed (TIME_WAIT): a connection per check would show.
    #expect(after.subtracting(before).count <= 1, "new connections: \(after.subtracting(before).sorted())")
    #expect(layer.watchStatus.isConnected)
    await running.stop()
  }

  @Test func overGRPCAFrozenMemberIsLeftAfterTheRequestTimeout() async throws {
    let server = try await EtcdServerProcess.started(inMemory: true)
    defer { server.shutdown() }
    let prefix = etcdTestPrefix("grpc-frozen")
    try await server.connection.put(prefix + "server/port", "1")
    server.freeze()
    defer { server.thaw() }
    let layer = EtcdLayer(
      endpoints: [server.endpoint], prefix: prefix, transport: .grpc, requestTimeout: .milliseconds(500))
    let error = try #require(await fetchError(layer))
    #expect(error.message.contains("no answer within"))
    server.thaw()
    #expect(await fetchedPort(layer) == "1")
  }

  @Test func overGRPCAUserAuthenticatesAndRefusalsAreReportedClearly() async throws {
    let server = try await EtcdServerProcess.started()  // on disk: the restart keeps the users
    defer { server.shutdown() }
    let prefix = etcdTestPrefix("grpc-auth")
    try await server.connection.put(prefix + "server/port", "1")
    try await server.enableAuthentication(readablePrefix: prefix, appPassword: Self.appUser.password)

    let layer = EtcdLayer(
      endpoints: [server.endpoint], prefix: prefix, credentials: Self.appUser, transport: .grpc,
      retry: Self.quickRetry)
    #expect(await fetchedPort(layer) == "1")
    #expect(layer.authentications == 1)
    #expect(await fetchedPort(layer) == "1")
    #expect(layer.authentications == 1)  // the token is kept
    // Across a restart of the member (whose tokens are then gone), still read without an error.
    await server.stop()
    try await server.start()
    #expect(await fetchedPort(layer) == "1")
    #expect(layer.authentications >= 1)

    let wrong = EtcdCredentials(user: "app", password: "not-the-password")
    let refused = try #require(
      await fetchError(
        EtcdLayer(endpoints: [server.endpoint], prefix: prefix, credentials: wrong, transport: .grpc)))
    #expect(refused.message.contains("user 'app'"))
    #expect(refused.message.contains("authentication failed"))
    #expect(!refused.message.contains(wrong.password))

    let anonymous = try #require(
      await fetchError(EtcdLayer(endpoints: [server.endpoint], prefix: prefix, transport: .grpc)))
    #expect(anonymous.message.contains("user name is empty"))
    #expect(anonymous.message.contains("EtcdCredentials"))

    let other = try #require(
      await fetchError(
        EtcdLayer(
          endpoints: [server.endpoint], prefix: etcdTestPrefix("other"), credentials: Self.appUser,
          transport: .grpc)))
    #expect(other.message.contains("permission denied"))
    #expect(other.message.contains("read permission"))
  }

  @Test(.enabled(if: EtcdTestCertificates.isAvailable, Comment(rawValue: EtcdTestCertificates.absence)))
  func overGRPCTLSVerifiesTheServerAndPresentsTheClientCertificate() async throws {
    let certificates = try await EtcdTestCertificates.make()
    defer { certificates.remove() }
    let prefix = etcdTestPrefix("grpc-mtls")
    let server = try await startedRequiringClientCertificates(certificates, portBelow: prefix)
    defer { server.shutdown() }

    let layer = EtcdLayer(
      endpoints: [server.endpoint], prefix: prefix, tls: certificates.clientTLS, transport: .grpc,
      retry: Self.quickRetry)
    #expect(await fetchedPort(layer) == "1")
    try await expectFollows(layer, server: server, prefix: prefix)

    // Without the client certificate, with another authority, with a missing file: refused, named.
    let noCertificate = try #require(
      await fetchError(
        EtcdLayer(
          endpoints: [server.endpoint], prefix: prefix, tls: EtcdTLS(caFile: certificates.ca),
          transport: .grpc)))
    #expect(noCertificate.message.contains(server.endpoint))
    let untrusted = try #require(
      await fetchError(
        EtcdLayer(
          endpoints: [server.endpoint], prefix: prefix,
          tls: EtcdTLS(
            caFile: certificates.otherCA, certificateFile: certificates.clientCertificate,
            keyFile: certificates.clientKey), transport: .grpc)))
    #expect(untrusted.message.contains(server.endpoint))
    let missing = try #require(
      await fetchError(
        EtcdLayer(
          endpoints: [server.endpoint], prefix: prefix,
          tls: EtcdTLS(caFile: certificates.directory + "/nope.pem"), transport: .grpc)))
    #expect(missing.message.contains("nope.pem"))
  }

  @Test(.enabled(if: EtcdTestCertificates.isAvailable, Comment(rawValue: EtcdTestCertificates.absence)))
  func overGRPCAUserWithClientCertificatesFollowsThePrefix() async throws {
    let certificates = try await EtcdTestCertificates.make()
    defer { certificates.remove() }
    let prefix = etcdTestPrefix("grpc-auth-mtls")
    let server = try await startedRequiringClientCertificates(certificates, portBelow: prefix)
    defer { server.shutdown() }
    try await server.enableAuthentication(readablePrefix: prefix, appPassword: Self.appUser.password)

    // etcd 3.4's gateway refuses this combination; gRPC, as etcdctl, is served.
    let layer = EtcdLayer(
      endpoints: [server.endpoint], prefix: prefix, credentials: Self.appUser, tls: certificates.clientTLS,
      transport: .grpc)
    #expect(await fetchedPort(layer) == "1")
    #expect(layer.authentications == 1)
    // A store over it follows a put made with etcdctl (as root, with the client certificate).
    try await expectFollows(layer, server: server, prefix: prefix) { key, value in
      try await server.etcdctl(["put", key, value])
    }

    let gateway = try #require(
      await fetchError(
        EtcdLayer(
          endpoints: [server.endpoint], prefix: prefix, credentials: Self.appUser,
          tls: certificates.clientTLS,
          transport: .gateway)))
    #expect(gateway.message.contains("--client-cert-auth"))
  }
}

/// The local ports of every TCP socket of this machine (IPv4 and IPv6, in any state, TIME_WAIT
/// included) whose remote port is `port`: the client sides of connections to a server on `port`.
private func clientSockets(toPort port: Int) -> Set<Int> {
  var ports: Set<Int> = []
  for table in ["/proc/net/tcp", "/proc/net/tcp6"] {
    guard let text = try? String(contentsOfFile: table, encoding: .utf8) else { continue }
    for line in text.split(separator: "\n").dropFirst() {
      let fields = line.split(separator: " ")
      guard fields.count > 2,
        let local = fields[1].split(separator: ":").last.flatMap({ Int($0, radix: 16) }),
        let remote = fields[2].split(separator: ":").last.flatMap({ Int($0, radix: 16) }),
        remote == port
      else { continue }
      ports.insert(local)
    }
  }
  return ports
}
