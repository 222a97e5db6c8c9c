import Foundation
import Testing

@testable import Strata

struct EventedSettings: SettingsGroup {
  static var section: String { "server" }
  @Setting(validation: .range(1...65535)) var port = 8080
  @Setting var workers = 4
  @Setting(traits: .secret) var token = ""
}

/// Every diagnostic is also an event: bad values, unknown keys and readable secrets reach subscribers
/// at start-up and on reload, once each, with file:line:column.
@Suite struct DiagnosticEventsTests {
  func store(_ dir: String) -> SettingsStore {
    SettingsStore(layers: [FileLayer(scope: .system, files: [dir + "/app.ini"])])
  }

  func diagnosed(_ events: [StoreEvent]) -> [String] {
    events.compactMap { event in
      if case .diagnosed(let diagnostic) = event { return diagnostic.description }
      return nil
    }
  }

  @Test func aNewSubscriptionHearsEveryProblemStandingAtStartUp() async throws {
    try await withTemporaryDirectory { dir in
      try write("[server]\nport = 70000\nwrokers = 8\ntoken = s3cret\n", to: dir + "/app.ini")
      chmod(dir + "/app.ini", 0o644)
      let store = store(dir)
      let settings = EventedSettings(store: store)
      #expect(settings.port == 8080)
      var events = store.events.makeAsyncIterator()
      let told = diagnosed(await emitted(&events, by: store))
      #expect(
        told.contains(
          "\(dir)/app.ini:2:8: error: invalid value \"70000\" for server.port: must be in 1...65535"))
      #expect(told.contains { $0.hasPrefix("\(dir)/app.ini:3:1: warning: unknown key 'server.wrokers'") })
      #expect(
        told.contains { $0.contains("supplies the secret 'server.token'") && $0.contains("chmod go-r") })
      #expect(!told.joined().contains("s3cret"))
      #expect(told.count == store.diagnostics.count)
    }
  }

  @Test func aReloadTellsOnlyTheNewProblemsAndARejectedEditOnlyOnce() async throws {
    try await withTemporaryDirectory { dir in
      try write("[server]\nport = 9000\n", to: dir + "/app.ini")
      let store = store(dir)
      let settings = EventedSettings(store: store)
      var events = store.events.makeAsyncIterator()
      #expect(diagnosed(await emitted(&events, by: store)).isEmpty)

      // An unknown key appears: told once, as a warning at its position.
      try write("[server]\nport = 9000\nprot = 1\n", to: dir + "/app.ini")
      await store.reload()
      let first = await emitted(&events, by: store)
      #expect(diagnosed(first).count == 1)
      #expect(
        diagnosed(first).first?.hasPrefix("\(dir)/app.ini:3:1: warning: unknown key 'server.prot'") == true)

      // A live edit out of range: the running value stays; told as `rejected`, not again as `diagnosed`.
      try write("[server]\nport = 0\nprot = 1\n", to: dir + "/app.ini")
      await store.reload()
      let second = await emitted(&events, by: store)
      #expect(settings.port == 9000)
      #expect(diagnosed(second).isEmpty, "\(second)")
      #expect(
        second.contains { event in
          if case .rejected(let error) = event { return error.line == 2 && error.code == .invalidValue }
          return false
        })

      // Nothing new: nothing told.
      try write("[server]\nport = 0\nprot = 1\n\n", to: dir + "/app.ini")
      await store.reload()
      #expect(diagnosed(await emitted(&events, by: store)).isEmpty)
    }
  }

  @Test func settingsDeclaredAfterSubscribingTellTheirValuesNowAndUnknownKeysWhenTheLoopStarts() async throws
  {
    try await withTemporaryDirectory { dir in
      try write("[server]\nworkers = many\nextra = 1\n", to: dir + "/app.ini")
      let store = store(dir)
      var events = store.events.makeAsyncIterator()
      #expect(diagnosed(await emitted(&events, by: store)).isEmpty)

      let settings = EventedSettings(store: store)
      #expect(settings.workers == 4)
      let declared = diagnosed(await emitted(&events, by: store))
      #expect(declared == ["\(dir)/app.ini:2:11: error: expected Int for server.workers, found \"many\""])

      let ready = SharedInt()
      let running = Task { await store.run(onReady: { ready.store(1) }) }
      defer { running.cancel() }
      try #require(await waitUntil(within: 60) { ready.load() == 1 })
      let started = diagnosed(await emitted(&events, by: store))
      #expect(started.count == 1)
      #expect(started.first?.hasPrefix("\(dir)/app.ini:3:1: warning: unknown key 'server.extra'") == true)
    }
  }
}
