import Strata
import StrataEtcd
import Testing

extension EtcdTests {
  /// The user `app` of ``EtcdServerProcess/enableAuthentication(readablePrefix:)``.
  static let appUser = EtcdCredentials(user: "app", password: "app-password-7f3a")

  @Test(arguments: [EtcdTransport.gateway, .grpc])
  func withAuthenticationOnAUserWithReadPermissionFollowsThePrefixAcrossARestart(
    transport: EtcdTransport
  ) async throws {
    let server = try await EtcdServerProcess.started()  // on disk: the restart keeps the users
    defer { server.shutdown() }
    let prefix = etcdTestPrefix("auth")
    try await server.connection.put(prefix + "server/port", "1")
    try await server.enableAuthentication(readablePrefix: prefix, appPassword: Self.appUser.password)

    let layer = EtcdLayer(
      endpoints: [server.endpoint], prefix: prefix, credentials: Self.appUser, transport: transport,
      retry: Self.quickRetry)
    let running = EtcdRunningStore(SettingsStore(layers: [layer]))
    defer { running.cancel() }
    let settings = EtcdServerSettings(store: running.store, section: "server")
    #expect(await running.waitUntilReady())
    #expect(settings.port == 1)
    #expect(await etcdEventually { layer.watchStatus.isConnected })
    try await server.connection.put(prefix + "server/port", "2")
    #expect(await etcdEventually { settings.port == 2 })
    #expect(layer.authentications == 1)

    // A restarted member has forgotten every token: the layer asks for a new one, and says nothing
    // of it (the restart itself is a failed event, then a recovery).
    await server.stop()
    try await server.start()
    try await server.connection.put(prefix + "server/port", "3")
    #expect(await etcdEventually { settings.port == 3 })
    #expect(layer.authentications >= 2)
    #expect(!running.failures.contains { $0.message.contains("token") || $0.message.contains("authenticat") })
    #expect(!running.events.value.contains { "\($0)".contains(Self.appUser.password) })
    await running.stop()
  }

  @Test(arguments: [EtcdTransport.gateway, .grpc])
  func anExpiredTokenIsReplacedWithoutAFailure(transport: EtcdTransport) async throws {
    let server = try EtcdServerProcess(inMemory: true, arguments: ["--auth-token-ttl", "1"])
    defer { server.shutdown() }
    try await server.start()
    let prefix = etcdTestPrefix("ttl")
    try await server.connection.put(prefix + "server/port", "1")
    try await server.enableAuthentication(readablePrefix: prefix, appPassword: Self.appUser.password)

    // etcd forgets a token that was not used for a second (each use extends it); the layer's check
    // comes every 2.5 s, so each one finds its token gone.
    let layer = EtcdLayer(
      endpoints: [server.endpoint], prefix: prefix, credentials: Self.appUser, transport: transport,
      retry: Self.quickRetry, checkInterval: .milliseconds(2500))
    let running = EtcdRunningStore(SettingsStore(layers: [layer]))
    defer { running.cancel() }
    let settings = EtcdServerSettings(store: running.store, section: "server")
    #expect(await running.waitUntilReady())
    #expect(await etcdEventually(timeout: .seconds(60)) { layer.authentications >= 3 })
    try await server.connection.put(prefix + "server/port", "2")
    #expect(await etcdEventually { settings.port == 2 })
    #expect(running.failures.isEmpty)
    #expect(layer.watchStatus.isConnected)
    await running.stop()
  }

  @Test func aWrongPasswordNoCredentialsAndNoPermissionAreReportedClearly() async throws {
    let server = try await EtcdServerProcess.started(inMemory: true)
    defer { server.shutdown() }
    let prefix = etcdTestPrefix("refused")
    try await server.connection.put(prefix + "server/port", "1")
    try await server.enableAuthentication(readablePrefix: prefix, appPassword: Self.appUser.password)

    let wrong = EtcdCredentials(user: "app", password: "not-the-password")
    let refused = try #require(
      await fetchError(EtcdLayer(endpoints: [server.endpoint], prefix: prefix, credentials: wrong)))
    #expect(refused.message.contains("user 'app'"))
    #expect(refused.message.contains("authentication failed"))
    #expect(!refused.message.contains(wrong.password))
    var dumped = ""
    dump(wrong, to: &dumped)
    #expect(!dumped.contains(wrong.password) && !"\(wrong)".contains(wrong.password))
    #expect(!String(reflecting: wrong).contains(wrong.password))

    let anonymous = try #require(await fetchError(EtcdLayer(endpoints: [server.endpoint], prefix: prefix)))
    #expect(anonymous.message.contains("user name is empty"))
    #expect(anonymous.message.contains("EtcdCredentials"))

    // `app` may read its prefix only.
    let other = try #require(
      await fetchError(
        EtcdLayer(endpoints: [server.endpoint], prefix: etcdTestPrefix("other"), credentials: Self.appUser)))
    #expect(other.message.contains("permission denied"))
    #expect(other.message.contains("read permission"))

    #expect(
      await fetchedPort(EtcdLayer(endpoints: [server.endpoint], prefix: prefix, credentials: Self.appUser))
        == "1")
  }

  @Test(.enabled(if: EtcdTestCertificates.isAvailable, Comment(rawValue: EtcdTestCertificates.absence)))
  func tlsVerifiesTheServerAgainstTheGivenAuthority() async throws {
    let certificates = try await EtcdTestCertificates.make()
    defer { certificates.remove() }
    let server = try EtcdServerProcess(
      inMemory: true, tls: EtcdServerProcess.TLS(certificates: certificates, requiresClientCertificate: false)
    )
    defer { server.shutdown() }
    try await server.start()
    #expect(server.endpoint.hasPrefix("https://"))
    let prefix = etcdTestPrefix("tls")
    try await server.connection.put(prefix + "server/port", "1")

    let layer = EtcdLayer(
      endpoints: [server.endpoint], prefix: prefix, tls: EtcdTLS(caFile: certificates.ca),
      retry: Self.quickRetry)
    try await expectFollows(layer, server: server, prefix: prefix)

    // A server whose certificate another authority signed is not trusted, nor one checked against
    // the system's authorities only.
    let untrusted = try #require(
      await fetchError(
        EtcdLayer(endpoints: [server.endpoint], prefix: prefix, tls: EtcdTLS(caFile: certificates.otherCA))))
    #expect(untrusted.message.contains(server.endpoint))
    #expect(await fetchedPort(EtcdLayer(endpoints: [server.endpoint], prefix: prefix)) == nil)
    // A file that is not there is named.
    let missing = try #require(
      await fetchError(
        EtcdLayer(
          endpoints: [server.endpoint], prefix: prefix,
          tls: EtcdTLS(caFile: certificates.directory + "/nope.pem"))))
    #expect(missing.message.contains("nope.pem"))
  }

  @Test(.enabled(if: EtcdTestCertificates.isAvailable, Comment(rawValue: EtcdTestCertificates.absence)))
  func tlsWithAClientCertificateFollowsAndWithoutOneIsRefused() async throws {
    let certificates = try await EtcdTestCertificates.make()
    defer { certificates.remove() }
    let server = try EtcdServerProcess(
      inMemory: true, tls: EtcdServerProcess.TLS(certificates: certificates, requiresClientCertificate: true))
    defer { server.shutdown() }
    try await server.start()
    let prefix = etcdTestPrefix("mtls")
    try await server.connection.put(prefix + "server/port", "1")

    let layer = EtcdLayer(
      endpoints: [server.endpoint], prefix: prefix, tls: certificates.clientTLS, retry: Self.quickRetry)
    try await expectFollows(layer, server: server, prefix: prefix)

    // Without the client certificate the server refuses the connection.
    let refused = try #require(
      await fetchError(
        EtcdLayer(endpoints: [server.endpoint], prefix: prefix, tls: EtcdTLS(caFile: certificates.ca))))
    #expect(refused.message.contains(server.endpoint))
    // A certificate without its key is a mistake named before anything is sent.
    let keyless = try #require(
      await fetchError(
        EtcdLayer(
          endpoints: [server.endpoint], prefix: prefix,
          tls: EtcdTLS(caFile: certificates.ca, certificateFile: certificates.clientCertificate))))
    #expect(keyless.message.contains("no keyFile"))
  }

  @Test(.enabled(if: EtcdTestCertificates.isAvailable, Comment(rawValue: EtcdTestCertificates.absence)))
  func authenticationOverTLSFollowsThePrefixAndWithClientCertificatesIsExplained() async throws {
    let certificates = try await EtcdTestCertificates.make()
    defer { certificates.remove() }
    let server = try EtcdServerProcess(
      inMemory: true, tls: EtcdServerProcess.TLS(certificates: certificates, requiresClientCertificate: false)
    )
    defer { server.shutdown() }
    try await server.start()
    let prefix = etcdTestPrefix("auth-tls")
    try await server.connection.put(prefix + "server/port", "1")
    try await server.enableAuthentication(readablePrefix: prefix, appPassword: Self.appUser.password)

    let layer = EtcdLayer(
      endpoints: [server.endpoint], prefix: prefix, credentials: Self.appUser,
      tls: EtcdTLS(caFile: certificates.ca), retry: Self.quickRetry)
    try await expectFollows(layer, server: server, prefix: prefix)
    #expect(layer.authentications == 1)

    // With --client-cert-auth too, etcd 3.4's gateway refuses every request (gRPC clients such as
    // etcdctl are served): the error says so and what to change.
    let strict = try EtcdServerProcess(
      inMemory: true, tls: EtcdServerProcess.TLS(certificates: certificates, requiresClientCertificate: true))
    defer { strict.shutdown() }
    try await strict.start()
    try await strict.enableAuthentication(readablePrefix: prefix, appPassword: Self.appUser.password)
    let refused = try #require(
      await fetchError(
        EtcdLayer(
          endpoints: [strict.endpoint], prefix: prefix, credentials: Self.appUser,
          tls: certificates.clientTLS,
          transport: .gateway)))
    #expect(refused.message.contains("--client-cert-auth"))
  }
}
