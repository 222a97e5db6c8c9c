import Foundation
import Testing

@testable import Strata

/// Typed writes from async code, and a group's one stream of its changes: a write that waits for the
/// directory's lock (another process writing) or the disk suspends its task, never a thread of the
/// cooperative pool; the group hears each generation that changed any of its settings once.
@Suite struct AsyncWriteTests {
  final class PoolSettings: SettingsGroup, @unchecked Sendable {
    override class var section: String { "pool" }
    @Setting var host = "localhost"
    @Setting(aliases: ["maxConn"]) var size = 4
    @Setting(validation: .range(1...65535)) var port = 8080
  }

  func store(_ dir: String) -> SettingsStore {
    SettingsStore(
      layers: [FileLayer(scope: .user, files: [dir + "/app.json"])], writeTarget: .file(dir + "/app.json"))
  }

  @Test func writesWaitingForAHeldLockLeaveThePoolFree() async throws {
    try await withTemporaryDirectory { dir in
      let store = store(dir)
      let pool = PoolSettings(store: store)
      let changes = pool.changes
      // Another process writes in the directory: it holds the lock every writer takes.
      let holder = open(dir, O_RDONLY | O_DIRECTORY)
      defer { close(holder) }
      #expect(flock(holder, LOCK_EX | LOCK_NB) == 0)
      // More writes than the pool has threads, each waiting for the lock.
      let writes = ProcessInfo.processInfo.activeProcessorCount * 2 + 2
      let finished = SharedInt()
      try await withThrowingTaskGroup(of: Void.self) { tasks in
        for n in 1...writes {
          tasks.addTask {
            try await pool.$port.set(9000 + n)
            finished.add(1)
          }
        }
        // Work that needs a thread of the pool runs while they wait. Had the writes blocked the pool's
        // threads, it would wait until their lock's 10 s are up, and they would then fail.
        let ran = await Task.detached {
          await Task.yield(); return 42
        }.value
        #expect(ran == 42)
        try await Task.sleep(for: .milliseconds(50))
        #expect(finished.load() == 0, "a write finished while another process held the lock")
        #expect(pool.port == 8080)
        #expect(flock(holder, LOCK_UN) == 0)
        try await tasks.waitForAll()
      }
      #expect(finished.load() == writes)
      let written = pool.port
      #expect((9001...(9000 + writes)).contains(written))
      #expect(pool.$port.origin.path == dir + "/app.json")
      // A refused value throws and writes nothing.
      await #expect(throws: StrataError.self) { try await pool.$port.set(0) }
      #expect(pool.port == written)
      // One edit that changes two settings (one by its old key): one element naming both.
      try write(#"{"pool": {"port": 7000, "maxConn": 9, "host": "localhost"}}"#, to: dir + "/app.json")
      await store.reload()
      #expect(pool.port == 7000 && pool.size == 9)
      // The same again changes nothing: no element.
      await store.reload()
      try await pool.$host.set("db.example")
      store.shutdown()
      var seen: [[String]] = []
      for await keys in changes { seen.append(keys) }
      // Each write that changed the port (the order of the writes decides how many did), then the edit,
      // then the host's write; never an element for the refused write or the reload that changed nothing.
      #expect(seen.count >= 3 && seen.count <= writes + 2, "\(seen)")
      #expect(seen.dropLast(2).allSatisfy { $0 == ["pool.port"] }, "\(seen)")
      #expect(seen.suffix(2) == [["pool.size", "pool.port"], ["pool.host"]], "\(seen)")
      #expect(pool.host == "db.example")
    }
  }

  @Test func aGroupsStreamEndsWhenTheGroupIsReleased() async throws {
    try await withTemporaryDirectory { dir in
      let store = store(dir)
      var pool: PoolSettings? = PoolSettings(store: store)
      let changes = try #require(pool?.changes)
      try await pool?.$size.reset()
      try await pool?.$size.set(5)
      pool = nil
      var seen: [[String]] = []
      for await keys in changes { seen.append(keys) }
      #expect(seen == [["pool.size"]])
      _ = store
    }
  }
}
