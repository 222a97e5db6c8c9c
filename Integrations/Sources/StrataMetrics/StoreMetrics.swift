public import CoreMetrics
public import Strata

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// Tells a swift-metrics backend what happens to a store's configuration, so that operators can alert
/// on failed reloads, rejected edits and pending restarts.
///
/// It follows the store's `events` and, after each event, reads the store's generation, keys, pending
/// restarts and failing sources. Every name begins with `prefix`
/// (`strata_` by default) and carries `dimensions` (for example `[("store", "main")]`, to tell stores
/// apart):
///
/// | name | type | dimensions | what it counts |
/// |---|---|---|---|
/// | `reloads_total` | counter | `result`: `ok`, `failed` | `ok`: a generation changed running values; `failed`: a source could not be read or parsed (its last good contents stay) |
/// | `rejected_values_total` | counter | | a live edit a setting refused (it does not convert or validate; the running value stays) |
/// | `recoveries_total` | counter | | a failure or rejection reported before is gone |
/// | `diagnostics_total` | counter | `severity`: `error`, `warning`, `note` | other problems, each once when it appears (values that fall back at start-up, unknown keys, …) |
/// | `watcher_fallbacks_total` | counter | | a path watched by polling because inotify could not watch it |
/// | `pending_restarts` | gauge | | restart-required settings whose new value waits for a restart |
/// | `failing_sources` | gauge | | errors of the current snapshot: sources in use with their last good contents |
/// | `generation` | gauge | | the store's generation |
/// | `keys` | gauge | | leaf keys of the merged configuration |
/// | `last_reload_timestamp_seconds` | gauge | | Unix time of the last `ok` reload (or of the start) |
/// | `source_failures_total` | counter | `source`: the file (or `unknown`) | failures of that source to read or parse |
/// | `source_failing` | gauge | `source` | 1 while that source is in use with its last good contents, 0 once it loads again |
///
/// The per-source pair is made when a source first fails, so that only sources that ever failed
/// appear.
///
/// A reload that changes no running value produces no event and is not counted. The events carry no
/// duration, so no reload duration is reported.
///
/// <!-- snippet: Integrations/Tests/StrataIntegrationsTests/DocSnippets/IntegrationSnippets.swift#StoreMetrics -->
/// ```swift
/// let metrics = StoreMetrics(dimensions: [("store", "main")])  // to MetricsSystem.factory
/// group.addTask { await metrics.run(store: store) }  // until cancelled or store.shutdown()
/// ```
public struct StoreMetrics: Sendable {
  /// What every metric name begins with.
  public let prefix: String
  /// The dimensions every metric carries.
  public let dimensions: [(String, String)]
  private let instruments: Instruments
  private let sources: SourceInstruments

  /// Creates the metrics of a store; they are registered with `factory` at once.
  /// - Parameters:
  ///   - prefix: what every name begins with.
  ///   - dimensions: dimensions added to every metric.
  ///   - factory: the backend (default: the one `MetricsSystem.bootstrap` installed).
  public init(
    prefix: String = "strata_", dimensions: [(String, String)] = [],
    factory: any MetricsFactory = MetricsSystem.factory
  ) {
    self.prefix = prefix
    self.dimensions = dimensions
    instruments = Instruments(prefix: prefix, dimensions: dimensions, factory: factory)
    sources = SourceInstruments(prefix: prefix, dimensions: dimensions, factory: factory)
  }

  /// Records every event until the task is cancelled or the store shuts down, beginning with the
  /// store's state now.
  public func run(store: SettingsStore) async {
    await record(events: store.events, of: store)
  }

  /// Records each of `events`: a subscription to `store.events` taken earlier, so that nothing between
  /// subscribing and starting is lost. The gauges are set from the store first.
  public func record(events: AsyncStream<StoreEvent>, of store: SettingsStore) async {
    instruments.lastReload.record(Self.now)
    refreshGauges(from: store)
    for await event in events { record(event, of: store) }
  }

  /// Records one event, then sets the gauges from `store`.
  public func record(_ event: StoreEvent, of store: SettingsStore) {
    switch event {
    case .reloaded:
      instruments.reloadsOK.increment()
      instruments.lastReload.record(Self.now)
    case .failed(let error):
      instruments.reloadsFailed.increment()
      sources.failed(error)
    case .rejected: instruments.rejectedValues.increment()
    case .recovered(let error):
      instruments.recoveries.increment()
      sources.recovered(error)
    case .pendingRestart: break  // the gauge below counts the standing ones
    case .watcherFallback: instruments.watcherFallbacks.increment()
    case .diagnosed(let diagnostic): instruments.diagnostics(diagnostic.severity).increment()
    case .controlRefused, .overrideExpired: break  // the control socket's own events: not counted yet
    }
    refreshGauges(from: store)
  }

  private func refreshGauges(from store: SettingsStore) {
    let snapshot = store.snapshot
    instruments.generation.record(store.snapshot.generation)
    instruments.keys.record(snapshot.entries.count)
    instruments.pendingRestarts.record(store.pendingRestarts.count)
    instruments.failingSources.record(snapshot.diagnostics.count(where: { $0.severity == .error }))
  }

  private static var now: Double { Date().timeIntervalSince1970 }
}
