import Foundation
import StrataPlatform
import Synchronization
import Testing

@testable import Strata

/// Where user code runs: a store's events and observers run on the store's loop, whichever API
/// started the generation.
@Suite struct ReloadLoopTests {
  /// The thread each `reloaded` event was told on, and the generation it names.
  private final class Calls: Sendable {
    let seen = Mutex<[(generation: Int, thread: ThreadIdentity)]>([])
    func note(_ event: StoreEvent) {
      guard case .reloaded(let generation, _, _) = event else { return }
      seen.withLock { $0.append((generation, ThreadIdentity.current)) }
    }
    func thread(ofGeneration generation: Int) -> ThreadIdentity? {
      seen.withLock { $0.last { $0.generation == generation }?.thread }
    }
  }

  @Test func everyGenerationIsToldOnTheStoresLoopWhicheverAPIStartedIt() async throws {
    try await withTemporaryDirectory { dir in
      let file = dir + "/app.ini"
      try write("[app]\nvalue = one\n", to: file)
      let store = SettingsStore(layers: [CountingLayer(), FileLayer(scope: .system, files: [file])])
      let settings = WatchedSettings(store: store)
      let calls = Calls()
      store.observeEvents { calls.note($0) }
      let (ready, readiness) = AsyncStream<Void>.makeStream()
      let running = Task { await store.run(watcher: FileWatcher(), onReady: { readiness.yield() }) }
      defer { running.cancel() }
      #expect(await next(ready) != nil, "the store's run loop did not become ready")

      // Each way to make a generation, with the thread that asked (a thread of the cooperative pool,
      // or one of the test's own).
      var callers: [(what: String, generation: Int, caller: ThreadIdentity)] = []
      let synchronous = await onOwnThread { () -> ThreadIdentity in
        store.reload()
        return ThreadIdentity.current
      }
      callers.append(("reload() on a thread", store.generation, synchronous))
      await store.reload()
      callers.append(("await reload()", store.generation, ThreadIdentity.current))
      try await settings.$value.save("assigned")
      callers.append(("a property assignment", store.generation, ThreadIdentity.current))
      try await store.saveValue("set", forKey: "app.extra")
      callers.append(("await saveValue", store.generation, ThreadIdentity.current))
      let setter = try await onOwnThread { () throws -> ThreadIdentity in
        try store.saveValue("set again", forKey: "app.extra")
        return ThreadIdentity.current
      }
      callers.append(("saveValue on a thread", store.generation, setter))
      let before = store.generation
      try replaceFile(file, with: "[app]\nvalue = one\ncount = 5\n")
      // A generation's event is told right after it is published: wait for the event too.
      #expect(
        await waitUntil(within: 60) {
          settings.count == 5 && store.generation > before
            && calls.thread(ofGeneration: store.generation) != nil
        })

      let loop = try #require(calls.thread(ofGeneration: store.generation), "the edit was not told")
      for (what, generation, caller) in callers {
        let told = calls.thread(ofGeneration: generation)
        #expect(told != nil, "\(what): generation \(generation) was not told")
        #expect(told == loop, "\(what): told on another thread than the edit's generation")
        #expect(told != caller, "\(what): told on the caller's thread")
      }
    }
  }

  @Test func aSynchronousReloadFromTheStoresOwnObserverDoesNotWaitForItself() async throws {
    let store = SettingsStore(layers: [CountingLayer()])
    let nested = Mutex(false)
    store.observeEvents { event in
      guard case .reloaded = event else { return }
      // The loop's own work: queued after this batch, not waited for (it would wait for itself).
      let first = nested.withLock { seen in
        defer { seen = true }
        return !seen
      }
      if first { store.reload() }
    }
    let start = store.generation
    await store.reload()
    // The nested reload ran after the first one's batch.
    #expect(await waitUntil(within: 60) { store.generation == start + 2 })
  }
}
