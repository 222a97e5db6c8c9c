import Foundation
import Testing

@testable import Strata

/// Typed writes from async code, and a group's one stream of its changes: a write that waits for the
/// directory's lock (another process writing) or the disk suspends its task, never a thread of the
/// cooperative pool; the group hears each generation that changed any of its settings once.
@Suite struct AsyncWriteTests {
  struct PoolSettings: SettingsGroup {
    static var section: String { "pool" }
    @Setting var host = "localhost"
    @Setting(aliases: ["maxConn"]) var size = 4
    @Setting(validation: .range(1...65535)) var port = 8080
  }

  func store(_ dir: String) -> SettingsStore {
    let store = SettingsStore(
      layers: [FileLayer(scope: .user, files: [dir + "/app.json"])], writeTarget: .file(dir + "/app.json"))
    // The test holds the lock until its task has checked the pool, which a machine busy with other
    // tests may not run for seconds: the writes wait longer than a program's would.
    store.writer.lockPatience.withLock { $0 = .seconds(300) }
    return store
  }

  @Test func writesWaitingForAHeldLockLeaveThePoolFree() async throws {
    try await withTemporaryDirectory { dir in
      // More writes than the pool has threads, each to a store of its own in a directory of its own,
      // where another process writes: it holds the lock every writer takes. Once the locks are given
      // back, no write waits for another (one lock would queue them, and the last could outwait its
      // 10 s on a busy machine's disk).
      let writes = ProcessInfo.processInfo.activeProcessorCount * 2 + 2
      let directories = [dir] + (1..<writes).map { dir + "/w\($0)" }
      let stores = try directories.map { directory in
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        return self.store(directory)
      }
      let pools = stores.map { PoolSettings(store: $0) }
      let (main, pool) = (stores[0], pools[0])
      let changes = pool.changes
      let holders = directories.map { open($0, O_RDONLY | O_DIRECTORY) }
      defer { for holder in holders { close(holder) } }
      #expect(holders.allSatisfy { $0 >= 0 && flock($0, LOCK_EX | LOCK_NB) == 0 })
      let finished = SharedInt()
      try await withThrowingTaskGroup(of: Void.self) { tasks in
        for (n, writing) in pools.enumerated() {
          tasks.addTask {
            try await writing.$port.save(9001 + n)
            finished.add(1)
          }
        }
        // Work that needs a thread of the pool runs while they wait. Had the writes blocked the pool's
        // threads, it would wait until their locks' patience is up, and they would then fail.
        let ran = await Task.detached {
          await Task.yield(); return 42
        }.value
        #expect(ran == 42)
        try await Task.sleep(for: .milliseconds(50))
        #expect(finished.load() == 0, "a write finished while another process held the lock")
        #expect(pools.allSatisfy { $0.port == 8080 })
        for holder in holders { #expect(flock(holder, LOCK_UN) == 0) }
        try await tasks.waitForAll()
      }
      #expect(finished.load() == writes)
      #expect(pools.enumerated().allSatisfy { $1.port == 9001 + $0 })
      #expect(pool.$port.origin.path == dir + "/app.json")
      // A refused value throws and writes nothing.
      await #expect(throws: StrataError.self) { try await pool.$port.save(0) }
      #expect(pool.port == 9001)
      // One edit that changes two settings (one by its old key): one element naming both.
      try write(#"{"pool": {"port": 7000, "maxConn": 9, "host": "localhost"}}"#, to: dir + "/app.json")
      await main.reload()
      #expect(pool.port == 7000 && pool.size == 9)
      // The same again changes nothing: no element.
      await main.reload()
      try await pool.$host.save("db.example")
      main.shutdown()
      var seen: [[String]] = []
      for await keys in changes { seen.append(keys) }
      // The write that changed the port, then the edit, then the host's write; never an element for the
      // refused write or the reload that changed nothing.
      #expect(seen == [["pool.port"], ["pool.size", "pool.port"], ["pool.host"]], "\(seen)")
      #expect(pool.host == "db.example")
      for other in stores.dropFirst() { other.shutdown() }
    }
  }

  @Test func aGroupsStreamEndsWhenTheGroupIsReleased() async throws {
    try await withTemporaryDirectory { dir in
      let store = store(dir)
      var pool: PoolSettings? = PoolSettings(store: store)
      let changes = try #require(pool?.changes)
      try await pool?.$size.removeSaved()
      try await pool?.$size.save(5)
      pool = nil
      var seen: [[String]] = []
      for await keys in changes { seen.append(keys) }
      #expect(seen == [["pool.size"]])
      _ = store
    }
  }
}
