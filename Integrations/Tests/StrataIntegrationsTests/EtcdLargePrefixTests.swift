import Strata
import StrataEtcd
import Testing

extension EtcdTests {
  /// 10,000 keys below the prefix load (every one, in key order, with its origin), and a put, a new
  /// key and a delete among them then reach the store, each applied by itself.
  @Test func tenThousandKeysLoadAndChangesAmongThemArrive() async throws {
    let server = try await EtcdServerProcess.started(inMemory: true)
    defer { server.shutdown() }
    let etcd = server.connection
    let prefix = etcdTestPrefix("large")
    try await withThrowingTaskGroup(of: Void.self) { group in
      for index in 0..<10_000 {
        if index >= 32 { try await group.next() }
        group.addTask {
          try await etcd.put(prefix + "svc\(index / 100)/key\(index % 100)", "value \(index)")
        }
      }
      try await group.waitForAll()
    }
    let firstRevision = try await etcd.put(prefix + "server/port", "1")

    let layer = EtcdLayer(endpoints: [server.endpoint], prefix: prefix, retry: Self.quickRetry)
    let running = EtcdRunningStore(SettingsStore(layers: [layer]))
    defer { running.cancel() }
    #expect(await running.waitUntilReady())
    #expect(await etcdEventually { layer.watchStatus.isConnected })
    let keys = try #require(layer.load(LoadContext()).documents.first?.root.table?.map(\.key))
    #expect(keys.count == 101)
    // etcd's byte order: server, svc0, svc1, svc10, svc11, …, svc99.
    #expect(keys.prefix(3) == ["server", "svc0", "svc1"])
    #expect(keys == keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) })
    #expect(running.text("svc99.key99") == "value 9999")
    let settings = EtcdServerSettings(store: running.store, section: "server")
    #expect(settings.port == 1)
    #expect(settings.$port.origin.description == "etcd:\(prefix)server/port@rev \(firstRevision)")

    let portRevision = try await etcd.put(prefix + "server/port", "2")
    #expect(await etcdEventually { settings.port == 2 })
    #expect(settings.$port.origin.description == "etcd:\(prefix)server/port@rev \(portRevision)")
    try await etcd.put(prefix + "svc5/new", "added")
    try await etcd.delete(prefix + "svc7/key7")
    #expect(await etcdEventually { running.text("svc5.new") == "added" })
    #expect(await etcdEventually { running.text("svc7.key7") == nil })
    #expect(running.text("svc7.key8") == "value 708")
    #expect(running.failures.isEmpty)
    await running.stop()
  }
}
