import Foundation
import StrataPlatform
import Synchronization
import Testing

@testable import Strata

/// Rollback when the service turns unhealthy: a generation after which the health check fails within
/// the window is undone, as a standing rollback that `--running` shows with its reason, until `--unset`
/// or an edit of the key ends it.
@Suite(.linuxOnly("the control socket's peer check")) struct RollbackTests {
  struct UpstreamSettings: SettingsGroup {
    @Setting var host = "a.example"
    @Setting var timeout: Duration = .seconds(5)
  }

  /// A store over one file, its events, and its control socket.
  final class Served: Sendable {
    let store: SettingsStore
    let upstream: UpstreamSettings
    let control: ControlServer
    let log = EventLog()

    final class EventLog: Sendable {
      let events = Mutex<[StoreEvent]>([])
    }

    init(dir: String) throws {
      try write("[upstream]\nhost = a.example\n", to: dir + "/app.ini")
      store = SettingsStore(layers: [FileLayer(scope: .system, files: [dir + "/app.ini"])])
      upstream = UpstreamSettings(store: store)
      control = try store.startControl(
        at: dir + "/control.sock", clock: ManualControlClock(), mode: 0o600, environment: [:])
      store.observeEvents { [log] event in log.events.withLock { $0.append(event) } }
    }

    func messages(_ kind: String) -> [String] {
      log.events.withLock { events in
        events.compactMap { event in
          switch (event, kind) {
          case (.failed(let error), "failed"), (.recovered(let error), "recovered"): error.message
          default: nil
          }
        }
      }
    }

    deinit { control.stop() }
  }

  @Test func anUnhealthyGenerationIsRolledBackShownAndEndedByUnset() async throws {
    try await withTemporaryDirectory { dir in
      let served = try Served(dir: dir)
      let (store, upstream) = (served.store, served.upstream)
      await store.noteHealth(true, window: .seconds(30))
      let healthy = store.snapshot.generation
      try write("[upstream]\nhost = b.example\ntimeout = 1s\n", to: dir + "/app.ini")
      await store.reload()
      #expect(upstream.host == "b.example")
      // Unhealthy within the window: every key the generation changed gets its healthy value back.
      await store.noteHealth(false, window: .seconds(30))
      #expect(upstream.host == "a.example" && upstream.timeout == .seconds(5))
      #expect(upstream.$host.origin == .file(path: dir + "/app.ini", line: 2, column: 8))
      let failed = try #require(served.messages("failed").last)
      #expect(failed.hasPrefix("the service turned unhealthy "))
      #expect(
        failed.hasSuffix(
          "after generation \(healthy + 1); rolled back to generation \(healthy): upstream.host = a.example, "
            + "upstream.timeout = 5s"), "\(failed)")
      // Unhealthy again: nothing more is rolled back (the rollback stands; the cause may be elsewhere).
      await store.noteHealth(false, window: .seconds(30))
      #expect(served.messages("failed").count == 1)

      let status = try await runConfigDump(["--socket", served.control.path], in: dir)
      #expect(
        status.output.contains(
          "\nRolled back (--unset KEY, or an edit of the key, ends it): \(failed)\n"
            + "  upstream.host = a.example  (\(dir)/app.ini:2:8)\n  upstream.timeout = 5s  (default)\n"),
        "\(status)")
      // The operator ends it key by key; the last one ends the rollback, with a recovered event.
      let unset = try await runConfigDump(
        ["--socket", served.control.path, "--unset", "upstream.host"], in: dir)
      #expect(unset.status == 0, "\(unset)")
      #expect(upstream.host == "b.example" && upstream.timeout == .seconds(5))
      #expect(served.messages("recovered").isEmpty)
      _ = try await runConfigDump(["--socket", served.control.path, "--unset", "upstream.timeout"], in: dir)
      #expect(upstream.timeout == .seconds(1))
      #expect(served.messages("recovered") == [failed])
      #expect(store.standingRollback == nil)
    }
  }

  @Test func anEditOfARolledBackKeyEndsItsRollback() async throws {
    try await withTemporaryDirectory { dir in
      let served = try Served(dir: dir)
      let (store, upstream) = (served.store, served.upstream)
      await store.noteHealth(true, window: .seconds(30))
      try write("[upstream]\nhost = b.example\n", to: dir + "/app.ini")
      await store.reload()
      await store.noteHealth(false, window: .seconds(30))
      #expect(upstream.host == "a.example")
      // A reload that changes nothing keeps the rollback; the operator's fix ends it.
      await store.reload()
      #expect(upstream.host == "a.example")
      try write("[upstream]\nhost = c.example\n", to: dir + "/app.ini")
      await store.reload()
      #expect(upstream.host == "c.example" && store.standingRollback == nil)
      #expect(served.messages("recovered").count == 1)
    }
  }

  @Test func unhealthyOutsideTheWindowOrWithoutAHealthyGenerationRollsNothingBack() async throws {
    try await withTemporaryDirectory { dir in
      let served = try Served(dir: dir)
      let (store, upstream) = (served.store, served.upstream)
      // Never seen healthy: nothing to roll back to.
      try write("[upstream]\nhost = b.example\n", to: dir + "/app.ini")
      await store.reload()
      await store.noteHealth(false, window: .seconds(30))
      #expect(upstream.host == "b.example")
      await store.noteHealth(true, window: .seconds(30))
      try write("[upstream]\nhost = c.example\n", to: dir + "/app.ini")
      await store.reload()
      // Unhealthy long after the generation: not its doing.
      await store.noteHealth(false, window: .seconds(30), now: Date() + 60)
      #expect(upstream.host == "c.example" && served.messages("failed").isEmpty)
    }
  }

  @Test func aRunningStoreAsksTheHealthCheckAndRollsBack() async throws {
    try await withTemporaryDirectory { dir in
      let served = try Served(dir: dir)
      let (store, upstream) = (served.store, served.upstream)
      let healthy = Atomic<Bool>(true)
      let asked = Atomic<Int>(0)
      let ready = AsyncStream<Void>.makeStream()
      let run = Task {
        await store.run(
          onReady: { ready.continuation.yield() },
          healthCheck: {
            asked.add(1, ordering: .relaxed)
            return healthy.load(ordering: .relaxed)
          }, rollbackWindow: .seconds(60))
      }
      defer { run.cancel() }
      for await _ in ready.stream { break }
      // Seen healthy at least once, then the edit, then the program turns unhealthy.
      #expect(
        await waitUntil(within: 20) {
          asked.load(ordering: .relaxed) > 0 && store.state.withLock { $0.health.healthy } != nil
        })
      try write("[upstream]\nhost = b.example\n", to: dir + "/app.ini")
      #expect(await waitUntil(within: 20) { upstream.host == "b.example" })
      healthy.store(false, ordering: .relaxed)
      #expect(await waitUntil(within: 20) { upstream.host == "a.example" }, "\(served.messages("failed"))")
      run.cancel()
      await run.value
    }
  }
}
