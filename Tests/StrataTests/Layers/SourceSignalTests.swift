import Synchronization
import Testing

@testable import Strata

/// A source that holds its values in memory and says when they change, as a remote store would; it
/// can also make the store wait for them (``Layer/loadsAsynchronously``).
final class PushingSource: Layer, Sendable {
  let scope = Scope.system
  let name = "pushing"
  let loadsAsynchronously: Bool
  private let value = Mutex<String>("first")
  private let fetches = Atomic<Int>(0)
  private let signals: AsyncStream<Void>
  private let continuation: AsyncStream<Void>.Continuation

  init(waits: Bool) {
    loadsAsynchronously = waits
    (signals, continuation) = AsyncStream<Void>.makeStream()
  }

  /// Changes the value and tells the store.
  func push(_ new: String) {
    value.withLock { $0 = new }
    continuation.yield()
  }

  var fetchCount: Int { fetches.load(ordering: .relaxed) }

  func load(_ context: LoadContext) -> LayerContents {
    // Without waiting, a remote source has nothing yet.
    if loadsAsynchronously { return LayerContents() }
    return contents()
  }

  func fetch(_ context: LoadContext) async -> LayerContents {
    fetches.add(1, ordering: .relaxed)
    return contents()
  }

  private func contents() -> LayerContents {
    let text = value.withLock { $0 }
    let root = SettingValue(
      .table(
        SettingTable([
          (
            "remote",
            SettingValue(
              .table(SettingTable([("value", SettingValue(.string(text), origin: .runtime))])),
              origin: .runtime)
          )
        ])),
      origin: .runtime)
    return LayerContents(documents: [Document(path: "pushing", root: root)])
  }

  func follow(signal: @escaping @Sendable () -> Void) async {
    for await _ in signals { signal() }
  }
}

/// A layer whose every load reads a counter: only a reload request makes the store read it again.
final class CountingLayer: Layer, Sendable {
  let scope = Scope.system
  let name = "counting"
  private let loads = Atomic<Int>(0)

  func load(_ context: LoadContext) -> LayerContents {
    let count = loads.add(1, ordering: .relaxed).newValue
    let root = SettingValue(
      .table(SettingTable([("count", SettingValue(.integer(count), origin: .runtime))])), origin: .runtime)
    return LayerContents(documents: [Document(path: "counting", root: root)])
  }
}

/// The next event that is not a watcher's fallback: a running store's watcher belongs to the process's
/// one watcher hub, and a test beside this one that makes the hub fail tells every watcher so.
func nextNotFromTheWatcher(_ events: inout AsyncStream<StoreEvent>.Iterator) async -> StoreEvent? {
  while let event = await events.next() {
    if case .watcherFallback = event { continue }
    return event
  }
  return nil
}

/// Every source's signals reach the store's run loop the same way; reload requests are an input.
@Suite struct SourceSignalTests {
  @Test func aPushingSourceIsReloadedOnItsSignal() async throws {
    let source = PushingSource(waits: false)
    let store = SettingsStore(layers: [source])
    #expect(store.snapshot.value(forKey: "remote.value")?.kind == .string("first"))
    var events = store.events.makeAsyncIterator()
    let running = Task { await store.run() }
    defer { running.cancel() }
    source.push("second")
    try #require(await waitUntil(within: 60) { store.generation == 2 })
    let event = await nextNotFromTheWatcher(&events)
    guard case .reloaded(_, let keys, _)? = event else {
      Issue.record("expected a reload, got \(String(describing: event))")
      return
    }
    #expect(keys == ["remote.value"])
    #expect(store.snapshot.value(forKey: "remote.value")?.kind == .string("second"))
  }

  @Test func aSourceThatWaitsIsFetchedWhenTheLoopStartsAndOnEachSignal() async throws {
    let source = PushingSource(waits: true)
    let store = SettingsStore(layers: [source])
    #expect(store.snapshot.value(forKey: "remote.value") == nil)  // nothing without waiting
    var events = store.events.makeAsyncIterator()
    let running = Task { await store.run() }
    defer { running.cancel() }
    try #require(await waitUntil(within: 60) { store.generation == 2 })
    let firstEvent = await nextNotFromTheWatcher(&events)
    guard case .reloaded(_, let first, _)? = firstEvent else {
      Issue.record("expected the first fetch to publish, got \(String(describing: firstEvent))")
      return
    }
    #expect(first == ["remote.value"])
    #expect(source.fetchCount == 1)
    source.push("second")
    try #require(await waitUntil(within: 60) { store.generation == 3 })
    let event = await nextNotFromTheWatcher(&events)
    guard case .reloaded(_, let second, _)? = event else {
      Issue.record("expected a reload, got \(String(describing: event))")
      return
    }
    #expect(second == ["remote.value"])
    #expect(source.fetchCount == 2)
    #expect(store.snapshot.value(forKey: "remote.value")?.kind == .string("second"))
  }

  /// A reload of every layer (`reload()`, an edit of a file the store cannot place) reads the layers
  /// that load without waiting; a source that waits keeps what it fetched, even one whose `load` has
  /// nothing to give.
  @Test func aReloadOfEveryLayerKeepsWhatASourceThatWaitsFetched() async throws {
    let source = PushingSource(waits: true)
    let store = SettingsStore(layers: [source, CountingLayer()])
    let running = Task { await store.run() }
    defer { running.cancel() }
    try #require(await waitUntil(within: 60) { store.snapshot.value(forKey: "remote.value") != nil })
    await store.reload()
    #expect(store.snapshot.value(forKey: "count")?.kind == .integer(2))
    #expect(store.snapshot.value(forKey: "remote.value")?.kind == .string("first"))
    #expect(source.fetchCount == 1)
  }

  @Test func reloadRequestsReadEveryLayerAgain() async throws {
    let store = SettingsStore(layers: [CountingLayer()])
    #expect(store.snapshot.value(forKey: "count")?.kind == .integer(1))
    let (requests, request) = AsyncStream<Void>.makeStream()
    var events = store.events.makeAsyncIterator()
    let running = Task { await store.run(reloadRequests: requests) }
    defer { running.cancel() }
    request.yield()
    try #require(await waitUntil(within: 60) { store.generation == 2 })
    guard case .reloaded(_, let keys, _)? = await nextNotFromTheWatcher(&events) else {
      Issue.record("expected a reload")
      return
    }
    #expect(keys == ["count"])
    #expect(store.snapshot.value(forKey: "count")?.kind == .integer(2))
  }

  @Test func theLoopEndsWhenCancelled() async throws {
    let store = SettingsStore(layers: [PushingSource(waits: false)])
    let running = Task { await store.run() }
    running.cancel()
    await running.value  // returns: nothing keeps the loop alive once cancelled
    #expect(running.isCancelled)
  }
}
