import Foundation
import MetricsTestKit
import Strata
import StrataMetrics
import Testing

/// The settings the metrics tests edit.
struct MetricsServerSettings: SettingsGroup {
  static var section: String { "server" }
  @Setting(validation: .range(1...65535)) var port = 8080
  @Setting(traits: .restartRequired) var token = "first"
}

/// Reads one store's metrics from a test backend.
struct RecordedMetrics {
  let backend: TestMetrics
  let prefix: String
  let dimensions: [(String, String)]

  /// The total of a counter.
  func counter(_ name: String, _ extra: [(String, String)] = []) throws -> Int64 {
    try backend.expectCounter(prefix + name, dimensions + extra).totalValue
  }

  /// The number of reloads with `result`.
  func reloads(_ result: String) throws -> Int64 { try counter("reloads_total", [("result", result)]) }

  /// The last value of a gauge.
  func gauge(_ name: String) throws -> Double? {
    try backend.expectGauge(prefix + name, dimensions).lastValue
  }
}

@Suite struct MetricsTests {
  @Test func aStoreCountsReloadsFailuresAndRejectedEditsAndSetsItsGauges() async throws {
    try await SvcFixtures.withTemporaryDirectory { dir in
      let file = dir + "/a.ini"
      try SvcFixtures.write("[server]\nport = 8080\ntoken = first\n", to: file)
      let store = SettingsStore(layers: [FileLayer(scope: .system, files: [file])])
      let server = MetricsServerSettings(store: store)
      _ = server.token  // read: a restart-required setting is fixed from its first read
      let backend = TestMetrics()
      let recorded = RecordedMetrics(backend: backend, prefix: "strata_", dimensions: [("store", "test")])
      let metrics = StoreMetrics(dimensions: [("store", "test")], factory: backend)
      let started = Date().timeIntervalSince1970
      let events = store.events
      let recording = Task { await metrics.record(events: events, of: store) }
      let ready = SvcFixtures.Flag()
      let running = Task { await store.run(onReady: { ready.set() }) }
      defer {
        running.cancel()
        recording.cancel()
      }
      #expect(await SvcFixtures.waitUntil { ready.isSet })
      #expect(try await SvcFixtures.waitUntil { try recorded.gauge("keys") == 2 })
      #expect(try recorded.gauge("generation") == Double(store.snapshot.generation))
      #expect(try recorded.gauge("pending_restarts") == 0 && recorded.gauge("failing_sources") == 0)
      #expect(try #require(try recorded.gauge("last_reload_timestamp_seconds")) >= started)

      let beforeEdit = Date().timeIntervalSince1970
      try SvcFixtures.write("[server]\nport = 9090\ntoken = first\n", to: file)
      #expect(try await SvcFixtures.waitUntil { try recorded.reloads("ok") == 1 })
      #expect(server.port == 9090)
      #expect(
        try await SvcFixtures.waitUntil {
          try recorded.gauge("generation") == Double(store.snapshot.generation)
        })
      #expect(try #require(try recorded.gauge("last_reload_timestamp_seconds")) >= beforeEdit)

      // A value the setting refuses: a rejected value, not a failed source; the running value kept.
      try SvcFixtures.write("[server]\nport = 80a\ntoken = first\n", to: file)
      #expect(try await SvcFixtures.waitUntil { try recorded.counter("rejected_values_total") == 1 })
      #expect(try recorded.reloads("ok") == 1 && recorded.gauge("failing_sources") == 0)
      #expect(try recorded.reloads("failed") == 0)
      #expect(server.port == 9090)

      // A file that does not parse: a failed source, in use with its last good contents.
      try SvcFixtures.write("[server\nport = 9090\n", to: file)
      #expect(try await SvcFixtures.waitUntil { try recorded.reloads("failed") == 1 })
      #expect(try await SvcFixtures.waitUntil { try recorded.gauge("failing_sources") == 1 })
      // … and counted for its file.
      #expect(try recorded.counter("source_failures_total", [("source", file)]) == 1)
      #expect(
        try backend.expectGauge("strata_source_failing", [("store", "test"), ("source", file)]).lastValue == 1
      )

      // Fixed, with the restart-required token changed: both problems recover, a restart is pending.
      try SvcFixtures.write("[server]\nport = 9090\ntoken = second\n", to: file)
      #expect(try await SvcFixtures.waitUntil { try recorded.gauge("pending_restarts") == 1 })
      #expect(try await SvcFixtures.waitUntil { try recorded.counter("recoveries_total") == 2 })
      #expect(try recorded.gauge("failing_sources") == 0)
      #expect(
        try backend.expectGauge("strata_source_failing", [("store", "test"), ("source", file)]).lastValue == 0
      )
      #expect(server.token == "first")

      // An unknown key: a warning diagnostic, one more key, and a reload that names it.
      let reloadsBefore = try recorded.reloads("ok")
      try SvcFixtures.write("[server]\nport = 9090\nprot = 1\ntoken = second\n", to: file)
      #expect(
        try await SvcFixtures.waitUntil {
          try recorded.counter("diagnostics_total", [("severity", "warning")]) == 1
        })
      #expect(try await SvcFixtures.waitUntil { try recorded.gauge("keys") == 3 })
      #expect(try await SvcFixtures.waitUntil { try recorded.reloads("ok") == reloadsBefore + 1 })
      #expect(try recorded.reloads("failed") == 1 && recorded.counter("rejected_values_total") == 1)
      #expect(try recorded.counter("watcher_fallbacks_total") == 0)
    }
  }

  @Test func eachEventKindIsCountedUnderThePrefixAndDimensionsGiven() throws {
    let backend = TestMetrics()
    let recorded = RecordedMetrics(backend: backend, prefix: "app_config_", dimensions: [("store", "main")])
    let store = SettingsStore.inMemory()
    let metrics = StoreMetrics(prefix: "app_config_", dimensions: [("store", "main")], factory: backend)
    let unparsable = StrataError(.syntax, "expected '=' after key", path: "/etc/a.ini", line: 3, column: 5)
    let refused = StrataError(
      .invalidValue, "invalid value 0 for server.port: 1...65535; the running value is kept",
      path: "/etc/a.ini",
      line: 2, column: 8)
    metrics.record(.reloaded(generation: 2, changedKeys: ["server.port"], files: ["/etc/a.ini"]), of: store)
    metrics.record(.failed(unparsable), of: store)
    metrics.record(.rejected(refused), of: store)
    metrics.record(.rejected(refused), of: store)
    metrics.record(.recovered(unparsable), of: store)
    metrics.record(.watcherFallback(path: "/etc/a", message: "inotify watch limit reached"), of: store)
    metrics.record(.diagnosed(Diagnostic(.error, unparsable)), of: store)
    metrics.record(.diagnosed(Diagnostic(.note, StrataError(.skipped, "skipped README"))), of: store)
    metrics.record(.diagnosed(Diagnostic(.note, StrataError(.skipped, "skipped a.ini~"))), of: store)

    #expect(
      try recorded.reloads("ok") == 1 && recorded.reloads("failed") == 1
        && recorded.counter("rejected_values_total") == 2)
    #expect(try recorded.counter("recoveries_total") == 1 && recorded.counter("watcher_fallbacks_total") == 1)
    #expect(try recorded.counter("diagnostics_total", [("severity", "error")]) == 1)
    #expect(try recorded.counter("diagnostics_total", [("severity", "warning")]) == 0)
    #expect(try recorded.counter("diagnostics_total", [("severity", "note")]) == 2)
    // The gauges come from the store, not from the events: this one has no key and no pending restart.
    #expect(try recorded.gauge("generation") == Double(store.snapshot.generation))
    #expect(try recorded.gauge("keys") == 0 && recorded.gauge("pending_restarts") == 0)
    #expect(backend.counters.allSatisfy { $0.label.hasPrefix("app_config_") })
    #expect(backend.counters(label: "strata_reloads_total").isEmpty)
  }
}
