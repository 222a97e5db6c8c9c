import Foundation
import StrataPlatform
import Synchronization
import Testing

@testable import Strata

/// The backend a build without inotify uses (and any build, for a watcher given it): every target is
/// polled, and the store says so once.
@Suite struct PollingBackendTests {
  @Test func theProcessUsesInotifyWhenItIsCompiledInAndPollingOtherwise() {
    let backend = preferredFileEventBackend()
    #expect((backend is PollingBackend) == !inotifyIsCompiledIn)
    #expect(WatcherHub.shared.backend.name == (inotifyIsCompiledIn ? "inotify" : "polling"))
  }

  @Test func thePollingBackendHasNoEventsSoTheHubPollsEveryPath() throws {
    let hub = WatcherHub(backend: PollingBackend(), clock: monotonicNanoseconds, startsThread: false)
    #expect(hub.source == nil)
    #expect(hub.loss == .noEvents)
    #expect(throws: Errno(ENOSYS)) { try PollingBackend().addWatch(-1, directory: "/") }
    hub.shutdown()
  }

  /// A store on the polling backend reloads edit after edit, and reports once, as a watcher fallback
  /// for `*`, that it polls and why.
  @Test func aStoreOnThePollingBackendSaysSoOnceAndReloads() async throws {
    try await withTemporaryDirectory { dir in
      let file = dir + "/a.ini"
      try write("[app]\nvalue = one\n", to: file)
      let store = SettingsStore(layers: [FileLayer(scope: .system, files: [file])])
      let settings = WatchedSettings(store: store)
      let watcher = FileWatcher(
        backend: PollingBackend(), clock: monotonicNanoseconds, missingGracePeriod: .milliseconds(100),
        pollInterval: .milliseconds(20), startsThread: true)
      let fallbacks = Mutex<[String]>([])
      let events = store.events
      let collecting = Task {
        for await event in events {
          if case .watcherFallback(let path, let message) = event {
            fallbacks.withLock { $0.append("\(path): \(message)") }
          }
        }
      }
      defer { collecting.cancel() }
      let running = Task { await store.run(watcher: watcher) }
      defer { running.cancel() }
      // Deadlines, not sleeps: each wait ends as soon as its condition holds.
      #expect(await waitUntil(within: 60) { !fallbacks.withLock(\.isEmpty) })
      let stream = settings.$value.changes
      for value in ["two", "three"] {
        try replaceFile(file, with: "[app]\nvalue = \(value)\n")
        #expect(await next(stream, within: 60) == value)
      }
      let reported = fallbacks.withLock { $0 }
      #expect(reported.count == 1, "\(reported)")
      #expect(
        reported.first?.hasPrefix("*: \(PollingBackend.reason); polling every path every 20 ms") == true)
    }
  }
}
