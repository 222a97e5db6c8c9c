import Strata
import StrataEtcd
import Testing

/// A layer over `endpoints`, run by a store that is ready, with the layer's watch open.
struct EtcdFollowedLayer {
  let layer: EtcdLayer
  let running: EtcdRunningStore
  let settings: EtcdServerSettings

  init(
    endpoints: [String], prefix: String, followsReset: Bool = false, transport: EtcdTransport = .gateway
  ) async {
    layer = EtcdLayer(
      endpoints: endpoints, prefix: prefix, followsReset: followsReset, transport: transport,
      retry: EtcdTests.quickRetry)
    running = EtcdRunningStore(SettingsStore(layers: [layer]))
    settings = EtcdServerSettings(store: running.store, section: "server")
    #expect(await running.waitUntilReady())
    #expect(await etcdEventually { layer.watchStatus.isConnected })
  }
}

extension EtcdTests {
  /// How a layer given a 3-member cluster's leader first fares when the leader fails (`fail`): the
  /// watch must resume on a survivor from the revision after the keys', without a read, and a write
  /// the survivors acknowledge must reach the layer within 10 s. Returns the figures as a phrase.
  func leaderFails(
    _ prefix: String, within: Duration, transport: EtcdTransport,
    _ fail: (EtcdServerProcess) async -> Void
  ) async throws -> String {
    let cluster = try await EtcdClusterProcess.started()
    defer { cluster.shutdown() }
    try await cluster.connection().put(prefix + "server/port", "8080")
    let leader = try #require(await cluster.leader())
    let survivors = cluster.members.indices.filter { $0 != leader }
    // The layer is given the leader first: its reads and its watch go there.
    let endpoints = ([leader] + survivors).map { cluster.members[$0].endpoint }
    let followed = await EtcdFollowedLayer(endpoints: endpoints, prefix: prefix, transport: transport)
    let (layer, running) = (followed.layer, followed.running)
    defer { running.cancel() }
    #expect(followed.settings.port == 8080)
    #expect(layer.watchStatus.members == [endpoints[0]])
    let seen = layer.revision
    let reads = layer.watchStatus.reads

    // The leader fails; a client of the survivors writes as soon as they have a new leader.
    let failed = ContinuousClock.now
    await fail(cluster.members[leader])
    let writer = cluster.connection(to: survivors, requestTimeout: .seconds(2))
    let acknowledged = Task { () -> (at: ContinuousClock.Instant, revision: Int)? in
      while ContinuousClock.now < failed + .seconds(60) && !Task.isCancelled {
        if let revision = try? await writer.put(prefix + "server/port", "9090") { return (.now, revision) }
        try? await Task.sleep(for: .milliseconds(20))
      }
      return nil
    }
    defer { acknowledged.cancel() }
    #expect(
      await etcdEventually(timeout: within) {
        layer.watchStatus.members.count >= 2 && layer.watchStatus.isConnected
      })
    let moved = ContinuousClock.now
    let (written, putRevision) = try #require(await acknowledged.value)
    // No stale value beyond the failover: the write reaches the layer within 10 s of its acknowledgement.
    #expect(await etcdEventually(timeout: .seconds(10)) { followed.settings.port == 9090 })
    let served = ContinuousClock.now

    // The watch moved to a survivor and resumed there, from the revision after the keys': no read. The
    // keys' revision is the one read, or a put's when the failed member sent its event before it
    // stopped (a member stops when the signal reaches it, and one may be busy in a write then); a
    // resume from after the put without its event would never serve 9090, which the check above sees.
    let status = layer.watchStatus
    #expect(!status.members.dropFirst().contains(endpoints[0]))
    let resumed = try #require(status.startRevisions.dropFirst().first ?? nil, "\(status.startRevisions)")
    #expect((seen + 1...putRevision + 1).contains(resumed), "\(status.startRevisions), put at \(putRevision)")
    #expect(status.startRevisions.allSatisfy { $0 != nil })
    #expect(status.reads == reads)
    try await writer.put(prefix + "server/host", "b.example")
    #expect(await etcdEventually { followed.settings.host == "b.example" })
    await running.stop()
    return "the watch resumed on \(status.members.last ?? "?") \(moved - failed) after the failure; "
      + "the survivors acknowledged a put \(written - failed) after it; the layer served it "
      + "\(served - written) after the acknowledgement (\(served - failed) after the failure); "
      + "failed events: \(running.failures.count); watch starts \(status.startRevisions), reads \(status.reads)"
  }

  @Test(arguments: [EtcdTransport.gateway, .grpc])
  func aKilledLeaderIsLeftForTheSurvivorsAndTheWatchResumesThereWithoutARead(transport: EtcdTransport)
    async throws
  {
    let figures = try await leaderFails(
      etcdTestPrefix("leader-killed"), within: .seconds(60), transport: transport
    ) { await $0.crash() }
    print("etcd leader killed (SIGKILL), \(transport): \(figures)")
  }

  @Test(arguments: [EtcdTransport.gateway, .grpc])
  func aFrozenLeaderIsLeftForTheSurvivorsWithinTenSeconds(transport: EtcdTransport) async throws {
    // checkInterval (3 s) + requestTimeout (5 s), and 2 s for a busy machine.
    let figures = try await leaderFails(
      etcdTestPrefix("leader-frozen"), within: .seconds(10), transport: transport
    ) { $0.freeze() }
    print("etcd leader frozen (SIGSTOP), \(transport): \(figures)")
  }

  @Test(arguments: [EtcdTransport.gateway, .grpc])
  func aClusterThatLostItsQuorumIsReportedNamingEachMemberAndFollowedAgainWithoutARead(
    transport: EtcdTransport
  ) async throws {
    let cluster = try await EtcdClusterProcess.started()
    defer { cluster.shutdown() }
    let prefix = etcdTestPrefix("quorum-lost")
    try await cluster.connection().put(prefix + "server/port", "8080")
    let leader = try #require(await cluster.leader())
    // The layer watches a member that is not the leader; the two others die: it has no leader left.
    let kept = try #require(cluster.members.indices.first { $0 != leader })
    let killed = cluster.members.indices.filter { $0 != kept }
    let endpoints = ([kept] + killed).map { cluster.members[$0].endpoint }
    let followed = await EtcdFollowedLayer(endpoints: endpoints, prefix: prefix, transport: transport)
    let (layer, running) = (followed.layer, followed.running)
    defer { running.cancel() }
    #expect(layer.watchStatus.members == [endpoints[0]])
    let reads = layer.watchStatus.reads

    let lost = ContinuousClock.now
    for index in killed { await cluster.members[index].crash() }
    // checkInterval (3 s) + requestTimeout (5 s), and 4 s for a busy machine.
    #expect(
      await etcdEventually(timeout: .seconds(12)) {
        running.failures.contains { error in endpoints.allSatisfy { error.message.contains($0) } }
      })
    let noticed = ContinuousClock.now - lost
    let error = try #require(running.failures.last)
    #expect(error.code == .unreadable && followed.settings.port == 8080)

    // One member comes back: the cluster has a quorum again, and the watch resumes without a read.
    let back = ContinuousClock.now
    try await cluster.members[killed[0]].start()
    #expect(await etcdEventually { !running.store.diagnostics.contains { $0.severity == .error } })
    let recovered = ContinuousClock.now - back
    try await cluster.connection(to: [kept, killed[0]]).put(prefix + "server/port", "9090")
    #expect(await etcdEventually { followed.settings.port == 9090 })
    let status = layer.watchStatus
    #expect(status.startRevisions.allSatisfy { $0 != nil } && status.reads == reads, "\(status)")
    print(
      "etcd cluster without quorum (2 of 3 killed), \(transport): reported after \(noticed): \(error.message); "
        + "a member restarted: recovered \(recovered) after its start began; watch starts \(status.startRevisions)"
    )
    await running.stop()
  }

  @Test(arguments: [EtcdTransport.gateway, .grpc], [false, true])
  func aPartitionThatLeavesOneMemberAloneIsReportedWithinThreeRequestTimeoutsAndFollowedAgainOnceItHeals(
    transport: EtcdTransport, frozenFirst: Bool
  ) async throws {
    let cluster = try await EtcdClusterProcess.started()
    // shutdown() lets frozen members go on (SIGCONT) before it kills them.
    defer { cluster.shutdown() }
    let prefix = etcdTestPrefix("partition")
    try await cluster.connection().put(prefix + "server/port", "8080")
    let leader = try #require(await cluster.leader())
    // One member that is not the leader is kept; the two others (the leader among them) are frozen:
    // their connections stay open and nothing answers, as in a partition. The layer is given the kept
    // member first (the member it watches lost its leader), or a frozen one (the member it watches
    // stops answering).
    let kept = try #require(cluster.members.indices.first { $0 != leader })
    let frozen = cluster.members.indices.filter { $0 != kept }
    let order = frozenFirst ? [frozen[0], kept, frozen[1]] : [kept] + frozen
    let endpoints = order.map { cluster.members[$0].endpoint }
    let followed = await EtcdFollowedLayer(endpoints: endpoints, prefix: prefix, transport: transport)
    let (layer, running) = (followed.layer, followed.running)
    defer { running.cancel() }
    #expect(layer.watchStatus.members == [endpoints[0]])
    #expect(followed.settings.port == 8080)
    let failuresBefore = running.failures.count

    let partitioned = ContinuousClock.now
    for index in frozen { cluster.members[index].freeze() }
    // The layer's requestTimeout is the default, 5 s: the failure must be reported within three.
    let requestTimeout = Duration.seconds(5)
    #expect(
      await etcdEventually(timeout: requestTimeout * 3) {
        running.failures.dropFirst(failuresBefore).contains { error in
          endpoints.allSatisfy { error.message.contains($0 + ": ") }
        }
      })
    let noticed = ContinuousClock.now - partitioned
    let error = try #require(running.failures.dropFirst(failuresBefore).last)
    #expect(error.code == .unreadable && followed.settings.port == 8080)
    #expect(!layer.watchStatus.isConnected)

    // The partition heals: the watch resumes and follows a later put, and the error goes away.
    let healed = ContinuousClock.now
    for index in frozen { cluster.members[index].thaw() }
    #expect(await etcdEventually { !running.store.diagnostics.contains { $0.severity == .error } })
    let recovered = ContinuousClock.now - healed
    try await cluster.connection().put(prefix + "server/port", "9090")
    #expect(await etcdEventually { followed.settings.port == 9090 })
    let status = layer.watchStatus
    let failures = running.failures.count - failuresBefore
    print(
      "etcd partition (2 of 3 frozen, \(frozenFirst ? "a frozen member" : "the kept member") watched), "
        + "\(transport): reported after \(noticed) (limit \(requestTimeout * 3)): \(error.message); "
        + "healed: recovered \(recovered) after the thaw; failed events: \(failures); "
        + "watch members \(status.members), starts \(status.startRevisions), reads \(status.reads)"
    )
    await running.stop()
  }
}
