import Strata
import StrataEtcd
import Testing

extension EtcdTests {
  @Test func aWipedServerWithANewClusterIDKeepsTheLastGoodValuesAndNamesBothClusters() async throws {
    let server = try await EtcdServerProcess.started()
    defer { server.shutdown() }
    let etcd = server.connection
    let prefix = etcdTestPrefix("new-cluster")
    try await etcd.put(prefix + "filler", "x")
    try await etcd.put(prefix + "server/port", "8080")
    let old = try await etcd.range(prefix: Array(prefix.utf8)).header.cluster
    let followed = await EtcdFollowedLayer(endpoints: [server.endpoint], prefix: prefix)
    let (running, settings) = (followed.running, followed.settings)
    defer { running.cancel() }

    // The server comes back as a new cluster (wiped, another token: another id), with another value.
    await server.stop()
    try server.wipeData()
    server.clusterToken = "strata-new-cluster"
    let restarted = ContinuousClock.now
    try await server.start()
    let new = try await etcd.range(prefix: Array(prefix.utf8)).header.cluster
    #expect(new != old)
    try await etcd.put(prefix + "server/port", "9090")
    let names = [String(old, radix: 16), String(new, radix: 16)]
    #expect(
      await etcdEventually {
        running.failures.contains { error in names.allSatisfy { error.message.contains($0) } }
      })
    let reportedAfter = ContinuousClock.now - restarted
    let error = try #require(running.failures.last { $0.message.contains(names[1]) })
    #expect(error.code == .invalidValue && error.path == "etcd:\(prefix)")
    #expect(error.message.contains("followsReset"))
    // The last good values stay, and later changes of the new cluster are refused too.
    #expect(settings.port == 8080 && running.text("filler") == "x")
    let later = try await etcd.put(prefix + "server/port", "9191")
    #expect(
      await etcdEventually { running.failures.contains { $0.message.contains("(revision \(later))") } })
    #expect(settings.port == 8080)
    print("etcd wiped (new cluster id): refused \(reportedAfter) after the restart: \(error.message)")
    await running.stop()
  }

  @Test func aServerThatLostItsHistoryKeepsTheLastGoodValuesAndNamesTheRevisions() async throws {
    let server = try await EtcdServerProcess.started()
    defer { server.shutdown() }
    let etcd = server.connection
    let prefix = etcdTestPrefix("history-refused")
    for value in 1...20 { try await etcd.put(prefix + "filler", String(value)) }  // a revision well past 1
    let seen = try await etcd.put(prefix + "server/port", "8080")
    let followed = await EtcdFollowedLayer(endpoints: [server.endpoint], prefix: prefix)
    let (layer, running, settings) = (followed.layer, followed.running, followed.settings)
    defer { running.cancel() }

    // Wiped, same token and member: the same cluster id, and the revision went back.
    await server.stop()
    try server.wipeData()
    try await server.start()
    let now = try await etcd.put(prefix + "server/port", "9090")
    #expect(
      await etcdEventually {
        running.failures.contains { $0.message.contains("went back from \(seen) to \(now)") }
      })
    #expect(settings.port == 8080 && running.text("filler") == "20")
    print(
      "etcd wiped (same cluster id): \(running.failures.last.map { "\($0)" } ?? ""); "
        + "watch starts \(layer.watchStatus.startRevisions)")
    await running.stop()
  }

  @Test func withFollowsResetAWipedServerIsReadAgainFromScratch() async throws {
    let server = try await EtcdServerProcess.started()
    defer { server.shutdown() }
    let etcd = server.connection
    let prefix = etcdTestPrefix("history-followed")
    for value in 1...20 { try await etcd.put(prefix + "filler", String(value)) }
    try await etcd.put(prefix + "server/port", "8080")
    let followed = await EtcdFollowedLayer(endpoints: [server.endpoint], prefix: prefix, followsReset: true)
    let (layer, running, settings) = (followed.layer, followed.running, followed.settings)
    defer { running.cancel() }

    await server.stop()
    try server.wipeData()
    server.clusterToken = "strata-followed"
    try await server.start()
    try await etcd.put(prefix + "server/port", "9090")
    #expect(await etcdEventually { settings.port == 9090 && running.text("filler") == nil })
    #expect(await etcdEventually { layer.watchStatus.isConnected })
    try await etcd.put(prefix + "server/port", "9191")
    #expect(await etcdEventually { settings.port == 9191 })
    #expect(!running.failures.contains { $0.code == .invalidValue })
    #expect(!running.store.diagnostics.contains { $0.severity == .error })
    await running.stop()
  }

  @Test func anotherClusterIsRefusedUntilTheOneTheValuesCameFromAnswersAgain() async throws {
    // Two one-member clusters: the layer is given both, as if one address pointed at another cluster.
    let home = try await EtcdServerProcess.started()
    defer { home.shutdown() }
    let other = try await EtcdServerProcess.started()
    defer { other.shutdown() }
    let prefix = etcdTestPrefix("other-cluster")
    try await home.connection.put(prefix + "server/port", "8080")
    try await other.connection.put(prefix + "server/port", "9999")
    let followed = await EtcdFollowedLayer(endpoints: [home.endpoint, other.endpoint], prefix: prefix)
    let (running, settings) = (followed.running, followed.settings)
    defer { running.cancel() }
    #expect(settings.port == 8080)

    // The home cluster goes away: the other answers, and is refused.
    await home.stop()
    #expect(await etcdEventually { running.failures.contains { $0.code == .invalidValue } })
    #expect(settings.port == 8080)
    // The home cluster answers again (and the other goes away): its values are taken, the error clears.
    try await home.start()
    try await home.connection.put(prefix + "server/port", "8181")
    await other.stop()
    #expect(await etcdEventually { settings.port == 8181 })
    #expect(await etcdEventually { !running.store.diagnostics.contains { $0.severity == .error } })
    await running.stop()
  }

  @Test func aPrefixEmptiedAtOnceKeepsTheLastGoodValuesUntilKeysComeBack() async throws {
    let server = try await EtcdServerProcess.started()
    defer { server.shutdown() }
    let etcd = server.connection
    let prefix = etcdTestPrefix("emptied")
    try await etcd.put(prefix + "server/port", "8080")
    try await etcd.put(prefix + "server/host", "a.example")
    let followed = await EtcdFollowedLayer(endpoints: [server.endpoint], prefix: prefix)
    let (running, settings) = (followed.running, followed.settings)
    defer { running.cancel() }

    let emptied = try await etcd.delete(below: prefix)
    #expect(
      await etcdEventually {
        running.failures.contains { $0.message.contains("is empty at revision \(emptied)") }
      })
    #expect(settings.port == 8080 && settings.host == "a.example")
    // A key comes back: the prefix is read as it is now.
    try await etcd.put(prefix + "server/port", "9090")
    #expect(await etcdEventually { settings.port == 9090 && running.text("server.host") == nil })
    #expect(await etcdEventually { !running.store.diagnostics.contains { $0.severity == .error } })
    // Deleting the prefix's only key is an ordinary change.
    let refusals = running.failures.count
    try await etcd.delete(prefix + "server/port")
    #expect(await etcdEventually { running.text("server.port") == nil })
    #expect(running.failures.count == refusals)
    await running.stop()
  }

  @Test func aFrozenServerIsNoticedWithinTenSecondsWithTheDefaults() async throws {
    let server = try await EtcdServerProcess.started()
    defer { server.shutdown() }
    let etcd = server.connection
    let prefix = etcdTestPrefix("frozen-defaults")
    try await etcd.put(prefix + "server/port", "8080")
    let followed = await EtcdFollowedLayer(endpoints: [server.endpoint], prefix: prefix)
    let (running, settings) = (followed.running, followed.settings)
    defer { running.cancel() }

    let frozen = ContinuousClock.now
    server.freeze()
    // At most checkInterval (3 s) + requestTimeout (5 s), and 2 s for a busy machine.
    #expect(await etcdEventually(timeout: .seconds(10)) { !running.failures.isEmpty })
    let noticed = ContinuousClock.now - frozen
    let error = try #require(running.failures.first)
    #expect(error.message.contains(server.endpoint) && error.message.contains("check"), "\(error)")
    #expect(settings.port == 8080)

    server.thaw()
    let thawed = ContinuousClock.now
    #expect(await etcdEventually { !running.store.diagnostics.contains { $0.severity == .error } })
    let recovered = ContinuousClock.now - thawed
    try await etcd.put(prefix + "server/port", "9090")
    #expect(await etcdEventually { settings.port == 9090 })
    print(
      "etcd frozen (SIGSTOP), default settings: noticed after \(noticed) (\(error.message)); recovered \(recovered) after SIGCONT"
    )
    await running.stop()
  }
}
