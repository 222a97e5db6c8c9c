import Strata
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
    guard let value = store.snapshot.value(forKey: key) else { return nil }
    if case .string(let text) = value.kind { return text }
    return value.description
  }
}

/// A fresh key prefix for one test.
func etcdTestPrefix(_ name: String) -> String { "/strata-tests/\(name)/" }
