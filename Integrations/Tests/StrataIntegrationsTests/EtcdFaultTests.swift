import Strata
import StrataEtcd
import Testing

extension EtcdTests {
  @Test func unreachableAtStartRunsOnTheOtherLayersReportsAndRetriesUntilEtcdAnswers() async throws {
    let server = try EtcdServerProcess()  // not started yet: nothing listens on its port
    defer { server.shutdown() }
    let prefix = etcdTestPrefix("unreachable")
    let layer = EtcdLayer(endpoints: [server.endpoint], prefix: prefix, retry: Self.quickRetry)
    let defaults = CodeDefaultsLayer(
      root: SettingValue(
        .table(
          SettingTable([
            (
              "server",
              SettingValue(
                .table(SettingTable([("port", SettingValue(.integer(1), origin: .codeDefault))])),
                origin: .codeDefault)
            )
          ])),
        origin: .codeDefault))
    let running = EtcdRunningStore(SettingsStore(layers: [defaults, layer]))
    defer { running.cancel() }
    let settings = EtcdServerSettings(store: running.store, section: "server")

    let began = ContinuousClock.now
    #expect(await running.waitUntilReady())
    let readyAfter = ContinuousClock.now - began
    #expect(settings.port == 1)
    #expect(await etcdEventually { running.failures.contains { $0.path == "etcd:\(prefix)" } })
    let error = try #require(running.failures.first { $0.path == "etcd:\(prefix)" })
    #expect(error.code == .unreadable)
    #expect(error.message.contains(server.endpoint))
    #expect(running.store.diagnostics.contains { $0.severity == .error && $0.error.path == "etcd:\(prefix)" })
    print(
      "etcd unreachable at start: the store was ready in \(readyAfter) on its other layers; failed: \(error)")

    // etcd starts; the retries find it; its value arrives and the error clears.
    try await server.start()
    let etcd = server.connection
    let started = ContinuousClock.now
    try await etcd.put(prefix + "server/port", "8080")
    #expect(await etcdEventually { settings.port == 8080 })
    let recoveredAfter = ContinuousClock.now - started
    #expect(await etcdEventually { running.recoveries.contains { $0.path == "etcd:\(prefix)" } })
    #expect(!running.store.diagnostics.contains { $0.severity == .error })
    // Retries with the same failure are one failed event, not one per attempt (etcd starting may fail
    // a retry differently for a moment: that is another failure, told once too).
    let told = running.failures.filter { $0.path == "etcd:\(prefix)" }.map(\.message)
    #expect(!told.isEmpty && zip(told, told.dropFirst()).allSatisfy { $0 != $1 }, "\(told)")
    print("etcd came up: its value reached the typed setting \(recoveredAfter) after the put")
    await running.stop()
  }

  @Test(arguments: [EtcdTransport.gateway, .grpc])
  func etcdStopsAndComesBackTheLastGoodStaysAndTheWatchResumesMissingNothing(transport: EtcdTransport)
    async throws
  {
    let server = try await EtcdServerProcess.started()
    defer { server.shutdown() }
    let etcd = server.connection
    let prefix = etcdTestPrefix("restart")
    try await etcd.put(prefix + "server/port", "8080")
    try await etcd.put(prefix + "server/host", "a.example")
    try await etcd.put(prefix + "old", "to be deleted")
    let layer = EtcdLayer(
      endpoints: [server.endpoint], prefix: prefix, transport: transport, retry: Self.quickRetry)
    let running = EtcdRunningStore(SettingsStore(layers: [layer]))
    defer { running.cancel() }
    let settings = EtcdServerSettings(store: running.store, section: "server")
    #expect(await running.waitUntilReady())
    #expect(settings.port == 8080)
    #expect(await etcdEventually { layer.watchStatus.isConnected })
    let seen = layer.revision
    let reads = layer.watchStatus.reads

    // etcd stops: the values stay, a failed event says so.
    let failuresBefore = running.failures.count
    let recoveriesBefore = running.recoveries.count
    let stopped = ContinuousClock.now
    await server.stop()
    #expect(
      await etcdEventually {
        running.failures.dropFirst(failuresBefore).contains { $0.path == "etcd:\(prefix)" }
      })
    let reportedAfter = ContinuousClock.now - stopped
    #expect(settings.port == 8080 && settings.host == "a.example")
    #expect(running.text("old") == "to be deleted")

    // etcd comes back; changes made at once (most likely before the watch reconnects) all arrive.
    try await server.start()
    let restarted = ContinuousClock.now
    try await etcd.put(prefix + "server/port", "9090")
    try await etcd.delete(prefix + "old")
    try await etcd.put(prefix + "new", "added")
    #expect(
      await etcdEventually {
        settings.port == 9090 && running.text("old") == nil && running.text("new") == "added"
      })
    let caughtUpAfter = ContinuousClock.now - restarted
    #expect(
      await etcdEventually {
        running.recoveries.dropFirst(recoveriesBefore).contains { $0.path == "etcd:\(prefix)" }
      })
    #expect(!running.store.diagnostics.contains { $0.severity == .error })
    #expect(settings.host == "a.example")

    // The watch resumed from the revision after the keys it knew, without reading the prefix again,
    // and still follows changes.
    #expect(await etcdEventually { layer.watchStatus.connections >= 2 && layer.watchStatus.isConnected })
    let status = layer.watchStatus
    #expect(status.startRevisions.count >= 2)
    #expect(status.startRevisions.dropFirst().allSatisfy { $0 == seen + 1 }, "\(status.startRevisions)")
    #expect(status.reads == reads)
    try await etcd.put(prefix + "server/host", "b.example")
    #expect(await etcdEventually { settings.host == "b.example" })
    print(
      "etcd stopped: failed event after \(reportedAfter); back: caught up \(caughtUpAfter) after the restart; "
        + "watch starts \(status.startRevisions) (last seen before the stop: \(seen))")
    await running.stop()
  }

  @Test(arguments: [EtcdTransport.gateway, .grpc])
  func aServerThatStopsAnsweringWithoutClosingIsNoticedByTheWatchCheck(transport: EtcdTransport) async throws
  {
    let server = try await EtcdServerProcess.started()
    defer { server.shutdown() }
    let etcd = server.connection
    let prefix = etcdTestPrefix("frozen")
    try await etcd.put(prefix + "server/port", "8080")
    let layer = EtcdLayer(
      endpoints: [server.endpoint], prefix: prefix, transport: transport, retry: Self.quickRetry,
      requestTimeout: .seconds(1), checkInterval: .milliseconds(200))
    let running = EtcdRunningStore(SettingsStore(layers: [layer]))
    defer { running.cancel() }
    let settings = EtcdServerSettings(store: running.store, section: "server")
    #expect(await running.waitUntilReady())
    #expect(await etcdEventually { layer.watchStatus.isConnected })

    #expect(await etcdEventually { settings.port == 8080 })

    // Frozen: the watch's connection stays open and silent; the check notices, the values stay.
    let failuresBefore = running.failures.count
    let recoveriesBefore = running.recoveries.count
    let frozen = ContinuousClock.now
    server.freeze()
    #expect(
      await etcdEventually {
        running.failures.dropFirst(failuresBefore).contains { $0.path == "etcd:\(prefix)" }
      })
    let noticedAfter = ContinuousClock.now - frozen
    #expect(settings.port == 8080)
    #expect(!layer.watchStatus.isConnected)

    // Thawed: the watch reconnects and follows changes again.
    server.thaw()
    let thawed = ContinuousClock.now
    try await etcd.put(prefix + "server/port", "9090")
    #expect(await etcdEventually { settings.port == 9090 })
    #expect(
      await etcdEventually {
        running.recoveries.dropFirst(recoveriesBefore).contains { $0.path == "etcd:\(prefix)" }
      })
    #expect(!running.store.diagnostics.contains { $0.severity == .error })
    print(
      "etcd frozen (SIGSTOP): noticed after \(noticedAfter); thawed: a put arrived \(ContinuousClock.now - thawed) later"
    )
    await running.stop()
  }

  @Test(arguments: [EtcdTransport.gateway, .grpc])
  func aCompactedWatchRevisionRereadsThePrefixAndPublishesOnlyWhatDiffers(transport: EtcdTransport)
    async throws
  {
    let server = try await EtcdServerProcess.started()
    defer { server.shutdown() }
    let etcd = server.connection
    let prefix = etcdTestPrefix("compaction")
    try await etcd.put(prefix + "a", "1")
    try await etcd.put(prefix + "b", "2")
    try await etcd.put(prefix + "c", "3")
    let layer = EtcdLayer(
      endpoints: [server.endpoint], prefix: prefix, transport: transport, retry: Self.quickRetry)
    _ = await layer.fetch(LoadContext())
    let seen = layer.revision
    let store = SettingsStore(layers: [layer])  // from the layer's last contents: a, b, c
    defer { store.shutdown() }
    let events = EtcdShared<[StoreEvent]>([])
    let stream = store.events
    let collecting = Task { for await event in stream { events.update { $0.append(event) } } }
    defer { collecting.cancel() }
    #expect(store.snapshot.root.value(at: "c")?.kind == .string("3"))

    // While no watch is open, keys change and the history is compacted past the revision read.
    try await etcd.put(prefix + "a", "10")
    try await etcd.delete(prefix + "b")
    let last = try await etcd.put(prefix + "d", "4")
    try await etcd.compact(to: last)

    // The watch resumes from seen + 1, which is gone: it starts again from now, and the fetch that
    // answers its signal reads the prefix again. The layer follows etcd in a child task of the test's.
    let (signals, signal) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
    try await withThrowingDiscardingTaskGroup { group in
      group.addTask { await layer.follow(signal: { signal.yield() }) }
      defer { group.cancelAll() }
      var iterator = signals.makeAsyncIterator()
      // The compaction is counted while the first watch is still marked connected: wait for the
      // second watch to have started, not only for a connection.
      #expect(
        await etcdEventually {
          let status = layer.watchStatus
          return status.compactions == 1 && status.startRevisions.count == 2 && status.isConnected
        })
      #expect(layer.watchStatus.startRevisions == [seen + 1, nil])
      #expect(await iterator.next() != nil)
      let contents = await layer.fetch(LoadContext())
      let root = try #require(contents.documents.first?.root)
      #expect(root.value(at: "a")?.kind == .string("10") && root.value(at: "b") == nil)
      #expect(root.value(at: "c")?.origin == .remote(source: "etcd", key: prefix + "c", revision: seen))
      #expect(root.value(at: "d")?.kind == .string("4"))

      // The store publishes only what differs: c's value and origin are unchanged.
      await store.reload()
      #expect(
        await etcdEventually {
          events.value.contains { if case .reloaded = $0 { true } else { false } }
        })
      let changed = events.value.compactMap { event -> [String]? in
        if case .reloaded(_, let keys, _) = event { keys } else { nil }
      }
      #expect(changed.map { Set($0) } == [["a", "b", "d"]])

      // The new watch follows changes, applying them without reading the prefix.
      let next = try await etcd.put(prefix + "c", "30")
      #expect(await etcdEventually { layer.revision >= next })
      #expect(await iterator.next() != nil)
      let followed = await layer.fetch(LoadContext())
      #expect(followed.documents.first?.root.value(at: "c")?.kind == .string("30"))
    }
  }
}

/// Values given in code, below etcd: the smallest source a program writes itself (a `Layer`).
struct CodeDefaultsLayer: Layer {
  /// The values: a table.
  let root: SettingValue
  var scope: Scope { .defaults }
  var name: String { "defaults" }

  func load(_ context: LoadContext) -> LayerContents {
    LayerContents(documents: [Document(path: name, root: root)])
  }
}
