import Logging
import ServiceLifecycle
import Strata
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
}
