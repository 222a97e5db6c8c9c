import Strata
import StrataEtcd
import Synchronization
import Testing

/// The etcd tests share one serialized suite: each starts its own server, and the latency test
/// should not share the machine with the others.
@Suite(.serialized, .enabled(if: EtcdServerProcess.isAvailable, Comment(rawValue: EtcdServerProcess.absence)))
struct EtcdTests {}

/// A value shared between a test and the tasks it starts.
final class EtcdShared<Value: Sendable>: Sendable {
  private let mutex: Mutex<Value>
  init(_ value: Value) { mutex = Mutex(value) }
  var value: Value { mutex.withLock { $0 } }
  func update(_ body: (inout Value) -> Void) { mutex.withLock { body(&$0) } }
}

/// Polls `condition` every 5 ms until it holds or `timeout` passes; returns whether it held.
func etcdEventually(timeout: Duration = .seconds(30), _ condition: () -> Bool) async -> Bool {
  let deadline = ContinuousClock.now + timeout
  while !condition() {
    if ContinuousClock.now >= deadline { return condition() }
    try? await Task.sleep(for: .milliseconds(5))
  }
  return true
}

/// A store's events, collected as they come, and its run loop, both ended by ``stop()``.
final class EtcdRunningStore: Sendable {
  let store: SettingsStore
  let events = EtcdShared<[StoreEvent]>([])
  let ready = EtcdShared(false)
  private let tasks = EtcdShared<[Task<Void, Never>]>([])

  /// Starts collecting events and runs the store's loop.
  init(_ store: SettingsStore) {
    self.store = store
    start()
  }

  /// Runs the loop (again).
  func start() {
    ready.update { $0 = false }
    let stream = store.events
    let events = self.events
    let ready = self.ready
    let store = self.store
    let collecting = Task {
      for await event in stream { events.update { $0.append(event) } }
    }
    let running = Task { await store.run(onReady: { ready.update { $0 = true } }) }
    tasks.update { $0 += [collecting, running] }
  }

  /// Waits until the loop is ready.
  func waitUntilReady() async -> Bool { await etcdEventually { ready.value } }

  /// Ends the loop and the event collection, and waits for them.
  func stop() async {
    let tasks = self.tasks.value
    self.tasks.update { $0 = [] }
    for task in tasks { task.cancel() }
    for task in tasks { await task.value }
  }

  /// Cancels the loop and the event collection without waiting (for `defer`).
  func cancel() {
    for task in tasks.value { task.cancel() }
    store.shutdown()
  }

  /// The `failed` events so far.
  var failures: [StrataError] {
    events.value.compactMap { if case .failed(let error) = $0 { return error } else { return nil } }
  }

  /// The `recovered` events so far.
  var recoveries: [StrataError] {
    events.value.compactMap { if case .recovered(let error) = $0 { return error } else { return nil } }
  }

  /// The changed keys of each `reloaded` event so far.
  var reloads: [[String]] {
    events.value.compactMap {
      if case .reloaded(_, let keys, _) = $0 { return keys } else { return nil }
    }
  }

  /// The merged value at `key` as text (strings unquoted), or `nil`.
  func text(_ key: String) -> String? {
    guard let value = store.snapshot.root.value(at: key) else { return nil }
    if case .string(let text) = value.kind { return text }
    return value.description
  }
}

/// A fresh key prefix for one test.
func etcdTestPrefix(_ name: String) -> String { "/strata-tests/\(name)/" }

/// The first error a fetch of `layer` reports (`nil`: none).
func fetchError(_ layer: EtcdLayer) async -> StrataError? {
  await layer.fetch(LoadContext()).diagnostics.first { $0.severity == .error }?.error
}

/// The value of `server.port` a fetch of `layer` reads (`nil`: none).
func fetchedPort(_ layer: EtcdLayer) async -> String? {
  let root = await layer.fetch(LoadContext()).documents.first?.root
  guard case .string(let text)? = root?.value(at: "server.port")?.kind else { return nil }
  return text
}

/// Runs a store over `layer`: its `server.port` is 1 (as the test put it) at start, and a put of 2 below
/// `prefix` (through `put`: the test's own gateway connection by default) reaches it through the
/// watch, with no failure.
func expectFollows(
  _ layer: EtcdLayer, server: EtcdServerProcess, prefix: String,
  put: (@Sendable (String, String) async throws -> Void)? = nil
) async throws {
  let running = EtcdRunningStore(SettingsStore(layers: [layer]))
  defer { running.cancel() }
  let settings = EtcdServerSettings(store: running.store, section: "server")
  #expect(await running.waitUntilReady())
  #expect(settings.port == 1)
  #expect(await etcdEventually { layer.watchStatus.isConnected })
  if let put {
    try await put(prefix + "server/port", "2")
  } else {
    try await server.connection.put(prefix + "server/port", "2")
  }
  #expect(await etcdEventually { settings.port == 2 })
  #expect(running.failures.isEmpty)
  await running.stop()
}
