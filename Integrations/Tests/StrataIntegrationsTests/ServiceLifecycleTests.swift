import Logging
import ServiceLifecycle
import Strata
import Synchronization
import Testing

@testable import StrataServiceLifecycle

/// The greeting of the service tests.
struct ServiceGreetingSettings: SettingsGroup {
  static var section: String { "greeting" }
  @Setting var name = "world"
}

@Suite struct ServiceLifecycleTests {
  /// A logger that drops everything.
  static let quiet = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })

  @Test func theServiceEndsWhenItsGroupShutsDownGracefully() async throws {
    try await SvcFixtures.withTemporaryDirectory { dir in
      try SvcFixtures.write("[greeting]\nname = world\n", to: dir + "/a.ini")
      let store = SettingsStore(layers: [FileLayer(scope: .system, files: [dir + "/a.ini"])])
      let ready = SvcFixtures.Flag()
      let ended = SvcFixtures.Flag()
      let group = ServiceGroup(
        services: [SettingsStoreService(store: store, onReady: { ready.set() })], logger: Self.quiet)
      let running = Task {
        defer { ended.set() }
        try await group.run()
      }
      defer { running.cancel() }
      #expect(await SvcFixtures.waitUntil { ready.isSet })
      await group.triggerGracefulShutdown()
      #expect(await SvcFixtures.waitUntil { ended.isSet }, "the group still runs after a graceful shutdown")
      try await running.value
    }
  }

  @Test func theServiceEndsWhenCancelled() async throws {
    try await SvcFixtures.withTemporaryDirectory { dir in
      try SvcFixtures.write("[greeting]\nname = world\n", to: dir + "/a.ini")
      let store = SettingsStore(layers: [FileLayer(scope: .system, files: [dir + "/a.ini"])])
      let ready = SvcFixtures.Flag()
      let ended = SvcFixtures.Flag()
      let service = SettingsStoreService(store: store, logger: Self.quiet, onReady: { ready.set() })
      let running = Task {
        defer { ended.set() }
        try await service.run()
      }
      #expect(await SvcFixtures.waitUntil { ready.isSet })
      running.cancel()
      #expect(await SvcFixtures.waitUntil { ended.isSet }, "the service still runs after cancellation")
    }
  }

  @Test func aReloadRequestReadsAnEditTheWatcherDidNotSee() async throws {
    try await SvcFixtures.withTemporaryDirectory { dir in
      let file = dir + "/a.ini"
      try SvcFixtures.write("[greeting]\nname = world\n", to: file)
      let store = SettingsStore(layers: [UnwatchedFileLayer(file: file)])
      let greeting = ServiceGreetingSettings(store: store)
      let (requests, request) = AsyncStream<Void>.makeStream()
      let ready = SvcFixtures.Flag()
      let service = SettingsStoreService(
        store: store, logger: nil, reloadRequests: { _ in requests }, onReady: { ready.set() })
      let running = Task { try await service.run() }
      defer { running.cancel() }
      #expect(await SvcFixtures.waitUntil { ready.isSet })
      try SvcFixtures.write("[greeting]\nname = Strata\n", to: file)
      let generation = store.snapshot.generation
      #expect(greeting.name == "world")  // nothing watches the file: the edit waits for a request
      request.yield()
      #expect(await SvcFixtures.waitUntil { greeting.name == "Strata" })
      #expect(store.snapshot.generation > generation)
    }
  }

  /// The service passes its health check on to the store: an edit after which the check fails within
  /// the window is rolled back, and the log says why.
  @Test func anEditAfterWhichTheServiceTurnsUnhealthyIsRolledBack() async throws {
    try await SvcFixtures.withTemporaryDirectory { dir in
      let file = dir + "/a.ini"
      try SvcFixtures.write("[greeting]\nname = world\n", to: file)
      let store = SettingsStore(layers: [FileLayer(scope: .system, files: [file])])
      let greeting = ServiceGreetingSettings(store: store)
      // The answers the check gives, and how many times it was asked.
      let health = Mutex((healthy: true, asked: 0))
      let ready = SvcFixtures.Flag()
      let (logger, records) = LoggingRecorder.logger()
      let service = SettingsStoreService(
        store: store, logger: logger, onReady: { ready.set() },
        healthCheck: {
          health.withLock { state in
            state.asked += 1
            return state.healthy
          }
        }, rollbackWindow: .seconds(30))
      let running = Task { try await service.run() }
      defer { running.cancel() }
      #expect(await SvcFixtures.waitUntil { ready.isSet })
      // Asked once healthy (the first generation is the one to go back to), then unhealthy from now on,
      // so that no check can take the edit's generation for a healthy one.
      #expect(await SvcFixtures.waitUntil { health.withLock { $0.asked } > 0 })
      health.withLock { $0.healthy = false }
      try SvcFixtures.write("[greeting]\nname = broken\n", to: file)
      // The edit is applied, then undone by the next check (every 3 s: a tenth of the window).
      #expect(
        await SvcFixtures.waitUntil(within: 60) { !records.matching("turned unhealthy").isEmpty },
        "\(records.all.map(\.message))")
      #expect(greeting.name == "world")
      #expect(greeting.$name.origin.description == file + ":2:8")
    }
  }
}
