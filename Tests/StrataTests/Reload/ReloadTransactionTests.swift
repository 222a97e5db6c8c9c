import Foundation
import Testing

@testable import Strata

struct ReloadSettings: SettingsGroup {
  static var section: String { "server" }
  @Setting var port = 8080
  @Setting var debug = false
  @Setting var name = "x"
}

/// Collects a store's events without waiting: `drain()` returns what arrived so far.
final class EventLog: @unchecked Sendable {
  // @unchecked: `events` is only touched with `lock` held.
  private let lock = NSLock()
  private var events: [StoreEvent] = []
  private var task: Task<Void, Never>?

  init(_ store: SettingsStore) {
    let stream = store.events
    task = Task { [weak self] in
      for await event in stream { self?.append(event) }
    }
  }

  private func append(_ event: StoreEvent) { lock.withLock { events.append(event) } }

  /// Waits (with a deadline, polling without spinning) until `count` events arrived, then returns them
  /// all: what arrived by the deadline, looked at once more then.
  func wait(for count: Int, seconds: Double = 30) async -> [StoreEvent] {
    let deadline = Date().addingTimeInterval(seconds)
    while lock.withLock({ events.count }) < count && Date() < deadline {
      try? await Task.sleep(for: .milliseconds(5))
    }
    return lock.withLock { events }
  }

  /// Waits (with a deadline, polling without spinning) until the events that arrived satisfy `done`,
  /// then returns them all: what arrived by the deadline, looked at once more then.
  func wait(seconds: Double = 30, until done: ([StoreEvent]) -> Bool) async -> [StoreEvent] {
    let deadline = Date().addingTimeInterval(seconds)
    while !done(lock.withLock({ events })) && Date() < deadline {
      try? await Task.sleep(for: .milliseconds(5))
    }
    return lock.withLock { events }
  }

  var all: [StoreEvent] { lock.withLock { events } }
  deinit { task?.cancel() }
}

@Suite struct ReloadTransactionTests {
  func setUp(_ dir: String, _ text: String) throws -> (SettingsStore, ReloadSettings, String) {
    let path = dir + "/app.ini"
    try write(text, to: path)
    let store = SettingsStore(layers: [FileLayer(scope: .system, files: [path])], writeTarget: .file(path))
    return (store, ReloadSettings(store: store), path)
  }

  @Test func anEditPublishesTheChangedKeysAndTypedValues() async throws {
    try await withTemporaryDirectory { dir in
      let (store, server, path) = try setUp(dir, "[server]\nport = 1\ndebug = no\n")
      let log = EventLog(store)
      var ports = server.$port.changes.makeAsyncIterator()
      var flags = server.$debug.changes.makeAsyncIterator()
      try write("[server]\nport = 2\ndebug = yes\n", to: path)
      store.reload(paths: [path])
      #expect(await ports.next() == 2)
      #expect(await flags.next() == true)
      let events = await log.wait(for: 1)
      guard case .reloaded(let generation, let keys, let files)? = events.first else {
        Issue.record("expected a reload event, got \(events)")
        return
      }
      #expect(generation == store.generation)
      #expect(keys == ["server.port", "server.debug"])
      #expect(files == [path])
    }
  }

  @Test func editsThatChangeNothingFireNothing() async throws {
    try await withTemporaryDirectory { dir in
      let (store, server, path) = try setUp(dir, "[server]\nport = 1\n")
      let log = EventLog(store)
      let generation = store.generation
      // touch, an identical rewrite, then comments and spacing only ("1" and " 1" are the same Int).
      store.reload(paths: [path])
      try write("[server]\nport = 1\n", to: path)
      store.reload(paths: [path])
      #expect(store.generation == generation)
      try write("; a comment\n[server]\n\nport =    1   ; same\n", to: path)
      store.reload(paths: [path])
      #expect(server.port == 1)
      #expect(server.$port.origin == .file(path: path, line: 4, column: 11))
      // A final real change proves the streams were listening: it is the first thing they deliver.
      var ports = server.$port.changes.makeAsyncIterator()
      try write("[server]\nport = 3\n", to: path)
      store.reload(paths: [path])
      #expect(await ports.next() == 3)
      let events = await log.wait(for: 1)
      #expect(events.count == 1)
    }
  }

  @Test func aBrokenEditKeepsTheLastGoodDocumentUntilFixed() async throws {
    try await withTemporaryDirectory { dir in
      let other = dir + "/other.json"
      try write(#"{"server": {"name": "a"}}"#, to: other)
      let path = dir + "/app.ini"
      try write("[server]\nport = 1\n", to: path)
      let store = SettingsStore(layers: [
        FileLayer(scope: .system, files: [path]), FileLayer(scope: .user, files: [other]),
      ])
      let server = ReloadSettings(store: store)
      let log = EventLog(store)
      try write("[server]\nport = 2\n[broken\n", to: path)
      try write(#"{"server": {"name": "b"}}"#, to: other)
      store.reload(paths: [path, other])
      #expect(server.port == 1)  // last good document
      #expect(server.name == "b")  // the rest of the stack still updates
      let failure = store.diagnostics.first { $0.severity == .error }
      #expect(failure?.error.location == path + ":3:8")
      let failedHere: (StoreEvent) -> Bool = {
        if case .failed(let error) = $0 { error.location == path + ":3:8" } else { false }
      }
      let events = await log.wait { $0.contains(where: failedHere) }
      #expect(events.contains(where: failedHere))
      try write("[server]\nport = 4\n", to: path)
      store.reload(paths: [path])
      #expect(server.port == 4)
      #expect(!store.diagnostics.contains { $0.severity == .error })
    }
  }

  @Test func theStoresOwnWriteIsAppliedOnceWithoutAnEcho() async throws {
    try await withTemporaryDirectory { dir in
      let (store, server, path) = try setUp(dir, "[server]\nport = 1\n")
      let log = EventLog(store)
      try await server.$port.save(5)
      let generation = store.generation
      store.reload(paths: [path])  // what the watcher reports after our own rename
      #expect(store.generation == generation)
      let events = await log.wait(for: 1)
      #expect(events.count == 1)
      #expect(server.port == 5)
    }
  }

  @Test func reloadOnlyTouchesTheLayersOfThePaths() throws {
    try withTemporaryDirectory { dir in
      try write("a = 1\n", to: dir + "/a.ini")
      try write("b = 1\n", to: dir + "/b.ini")
      let store = SettingsStore(layers: [
        FileLayer(scope: .system, files: [dir + "/a.ini"]), FileLayer(scope: .user, files: [dir + "/b.ini"]),
      ])
      try write("a = 2\n", to: dir + "/a.ini")
      try write("b = 2\n", to: dir + "/b.ini")
      store.reload(paths: [dir + "/b.ini"])
      #expect(store.snapshot.entry(forKey: "a")?.value.kind == .string("1"))
      #expect(store.snapshot.entry(forKey: "b")?.value.kind == .string("2"))
      #expect(store.watchedPaths == [dir + "/a.ini", dir + "/b.ini"])
    }
  }
}
