import MetricsTestKit
import Strata
import StrataEtcd
import Testing

extension EtcdTests {
  @Test func etcdMetricsReportTheWatchTheRevisionAndTheTimeSinceEtcdAnswered() async throws {
    let server = try await EtcdServerProcess.started()
    defer { server.shutdown() }
    let prefix = etcdTestPrefix("metrics")
    let written = try await server.connection.put(prefix + "server/port", "1")
    let layer = EtcdLayer(
      endpoints: [server.endpoint], prefix: prefix, retry: Self.quickRetry, checkInterval: .milliseconds(200))
    let running = EtcdRunningStore(SettingsStore(layers: [layer]))
    defer { running.cancel() }
    #expect(await running.waitUntilReady())
    #expect(await etcdEventually { layer.status.isWatching })

    let backend = TestMetrics()
    let metrics = EtcdMetrics(layer: layer, dimensions: [("store", "main")], factory: backend)
    let dimensions = [("source", "etcd:" + prefix), ("store", "main")]
    func gauge(_ name: String) throws -> Double? {
      try backend.expectGauge("strata_etcd_" + name, dimensions).lastValue
    }
    func counter(_ name: String) throws -> Int64 {
      try backend.expectCounter("strata_etcd_" + name, dimensions).totalValue
    }
    metrics.record()
    #expect(try gauge("watch_connected") == 1)
    #expect(try gauge("revision") == Double(written))
    #expect(try #require(try gauge("server_revision")) >= Double(written))
    #expect(try counter("watches_total") == 1)
    #expect(try counter("reads_total") >= 1)
    #expect(try counter("authentications_total") == 0)
    #expect(layer.status.member == server.endpoint)

    // A put moves the revision; the checks keep the contact recent.
    let moved = try await server.connection.put(prefix + "server/port", "2")
    #expect(await etcdEventually { layer.status.revision == moved })
    metrics.record()
    #expect(try gauge("revision") == Double(moved))
    #expect(try #require(try gauge("seconds_since_contact")) < 30)

    // etcd stops: the watch is gone, and the time since the last contact grows.
    await server.stop()
    #expect(await etcdEventually { !layer.status.isWatching })
    let lastContact = try #require(layer.status.lastContact)
    #expect(await etcdEventually { ContinuousClock.now - lastContact > .milliseconds(500) })
    metrics.record()
    #expect(try gauge("watch_connected") == 0)
    #expect(try #require(try gauge("seconds_since_contact")) > 0.5)
    #expect(layer.status.member == nil)

    // Back: a second watch, resumed (no second read is needed).
    try await server.start()
    #expect(await etcdEventually { layer.status.isWatching })
    metrics.record()
    #expect(try gauge("watch_connected") == 1)
    #expect(try counter("watches_total") == 2)
    await running.stop()
  }
}
