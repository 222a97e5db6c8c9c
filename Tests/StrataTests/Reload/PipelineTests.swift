import Foundation
import Observation
import Testing

@testable import Strata

/// A gate an observer waits at on the pipeline's thread (never a thread of the cooperative pool), and
/// the test opens; it knows whether someone is waiting.
private final class Gate: @unchecked Sendable {
  // @unchecked: `entered` and `open` are touched only with `condition`'s lock held.
  private let condition = NSCondition()
  private var entered = false
  private var open = false

  /// Waits until the gate opens (at most `limit`, so that a failing test cannot hang the run).
  func pass(limit: TimeInterval = 120) {
    condition.lock()
    entered = true
    condition.broadcast()
    let deadline = Date(timeIntervalSinceNow: limit)
    while !open && condition.wait(until: deadline) {}
    condition.unlock()
  }

  var isEntered: Bool {
    condition.lock()
    defer { condition.unlock() }
    return entered
  }

  func openUp() {
    condition.lock()
    open = true
    condition.broadcast()
    condition.unlock()
  }
}

/// Starts a running store over `dir/app.ini` and returns its task once every watch is set.
private func running(_ store: SettingsStore) async -> Task<Void, Never> {
  let (ready, readiness) = AsyncStream<Void>.makeStream()
  let task = Task { await store.run(watcher: FileWatcher(), onReady: { readiness.yield() }) }
  #expect(await next(ready) != nil, "the store's run loop did not become ready")
  return task
}

/// Replaces a file whole, as an editor's save does.
private func replace(_ path: String, with text: String) throws {
  try text.write(toFile: path, atomically: true, encoding: .utf8)
}

/// The pipeline: what runs where, and in which order.
@Suite struct PipelineTests {
  @Test func aSlowObserverHoldsUpOnlyItsOwnStore() async throws {
    try await withTemporaryDirectory { dir in
      try write("[app]\nvalue = a0\n", to: dir + "/a/app.ini")
      try write("[app]\nvalue = b0\n", to: dir + "/b/app.ini")
      let storeA = SettingsStore(layers: [FileLayer(scope: .system, files: [dir + "/a/app.ini"])])
      let storeB = SettingsStore(layers: [FileLayer(scope: .system, files: [dir + "/b/app.ini"])])
      let a = WatchedSettings(store: storeA)
      let b = WatchedSettings(store: storeB)
      let gate = Gate()
      defer { gate.openUp() }
      // An Observation hook that blocks: it runs where A publishes.
      withObservationTracking {
        _ = a.value
      } onChange: {
        gate.pass()
      }
      let runningA = await running(storeA)
      defer { runningA.cancel() }
      let runningB = await running(storeB)
      defer { runningB.cancel() }
      let changesA = a.$value.changes
      let changesB = b.$value.changes

      try replace(dir + "/a/app.ini", with: "[app]\nvalue = a1\n")
      #expect(await waitUntil(within: 60) { gate.isEntered }, "A's observer was never called")
      // A is stuck in its observer; B, watched by the same process-wide watcher, still reloads.
      try replace(dir + "/b/app.ini", with: "[app]\nvalue = b1\n")
      #expect(await eventually(changesB, equals: "b1"))
      #expect(b.value == "b1")
      // A catches up once its observer returns, edits made meanwhile included.
      try replace(dir + "/a/app.ini", with: "[app]\nvalue = a2\n")
      gate.openUp()
      #expect(await eventually(changesA, equals: "a2"))
    }
  }

  @Test func aRejectedEditIsARejectedEventNotAFailedSourceNorAReload() async throws {
    try await withTemporaryDirectory { dir in
      try write("[server]\nport = 9000\nworkers = 4\n", to: dir + "/app.ini")
      let store = SettingsStore(layers: [FileLayer(scope: .system, files: [dir + "/app.ini"])])
      let settings = EventedSettings(store: store)
      var events = store.events.makeAsyncIterator()
      _ = await emitted(&events, by: store)

      try write("[server]\nport = 80a\nworkers = 4\n", to: dir + "/app.ini")
      await store.reload()
      let rejected = await emitted(&events, by: store)
      #expect(settings.port == 9000)
      #expect(
        rejected.contains {
          if case .rejected(let error) = $0 { error.message.contains("server.port") } else { false }
        })
      #expect(!rejected.contains { if case .failed = $0 { true } else { false } }, "\(rejected)")
      #expect(!rejected.contains { if case .reloaded = $0 { true } else { false } }, "\(rejected)")

      // Another key changes while the bad value stands: the reload names that key only.
      try write("[server]\nport = 80a\nworkers = 8\n", to: dir + "/app.ini")
      await store.reload()
      let reloads = await emitted(&events, by: store).compactMap { event -> [String]? in
        if case .reloaded(_, let keys, _) = event { return keys }
        return nil
      }
      #expect(reloads == [["server.workers"]])
      #expect(settings.workers == 8 && settings.port == 9000)
    }
  }

  @Test func anObserverThatWritesDoesNotWaitForItself() async throws {
    let store = SettingsStore.inMemory()
    let settings = WatchedSettings(store: store)
    let writes = Locked(0)
    store.observeEvents { event in
      // A write from inside the pipeline's own work: it runs after this batch, and returns at once.
      guard case .reloaded(_, let keys, _) = event, keys == ["app.count"], settings.count < 3 else { return }
      writes.withLock { $0 += 1 }
      try? store.setRuntimeValue(
        SettingValue(.integer(settings.count + 1), origin: .runtime), forKey: "app.count")
    }
    try await store.setRuntimeValue(SettingValue(.integer(1), origin: .runtime), forKey: "app.count")
    #expect(settings.count == 3)
    #expect(writes.withLock { $0 } == 2)
  }
}
