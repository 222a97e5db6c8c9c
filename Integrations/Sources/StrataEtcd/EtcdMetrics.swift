public import CoreMetrics
import Synchronization

/// Tells a swift-metrics backend how an ``EtcdLayer`` follows etcd, so that operators can alert on a
/// lost watch or stale values (the StrataMetrics product's `StoreMetrics` counts the store's reloads
/// and failures).
///
/// It samples the layer's ``EtcdLayer/status`` every `interval` while ``run(every:)`` runs. Every name
/// begins with `prefix` (`strata_etcd_` by default) and carries `dimensions` and
/// `("source", layer.name)`:
///
/// | name | type | what it tells |
/// |---|---|---|
/// | `watch_connected` | gauge | 1 while a watch is open, 0 otherwise |
/// | `revision` | gauge | the revision the layer's keys reflect |
/// | `server_revision` | gauge | the newest revision of the cluster an answer carried |
/// | `seconds_since_contact` | gauge | how long ago etcd last showed the keys current: at most `checkInterval` with an open watch; alert when it passes a few of them |
/// | `reads_total` | counter | whole reads of the prefix |
/// | `watches_total` | counter | watches opened (one per reconnection or failover) |
/// | `compactions_total` | counter | watches cancelled because their revision was compacted |
/// | `authentications_total` | counter | tokens asked for |
///
/// <!-- snippet: Integrations/Tests/StrataIntegrationsTests/DocSnippets/IntegrationSnippets.swift#EtcdMetrics -->
/// ```swift
/// let metrics = EtcdMetrics(layer: etcd)  // to MetricsSystem.factory
/// group.addTask { await metrics.run() }  // in the service's task group: a sample every second
/// ```
public struct EtcdMetrics: Sendable {
  /// The layer sampled.
  public let layer: EtcdLayer
  private let connected: Gauge
  private let revision: Gauge
  private let serverRevision: Gauge
  private let sinceContact: Gauge
  private let reads: Counter
  private let watches: Counter
  private let compactions: Counter
  private let authentications: Counter
  /// The status last recorded: the counters grow by what changed since.
  private let last: LastStatus

  /// Creates the metrics of `layer`; they are registered with `factory` at once.
  /// - Parameters:
  ///   - layer: the layer sampled.
  ///   - prefix: what every name begins with.
  ///   - dimensions: dimensions added to every metric, after `("source", layer.name)`.
  ///   - factory: the backend (default: the one `MetricsSystem.bootstrap` installed).
  public init(
    layer: EtcdLayer, prefix: String = "strata_etcd_", dimensions: [(String, String)] = [],
    factory: any MetricsFactory = MetricsSystem.factory
  ) {
    self.layer = layer
    let dimensions = [("source", layer.name)] + dimensions
    func gauge(_ name: String) -> Gauge {
      Gauge(label: prefix + name, dimensions: dimensions, factory: factory)
    }
    func counter(_ name: String) -> Counter {
      Counter(label: prefix + name, dimensions: dimensions, factory: factory)
    }
    connected = gauge("watch_connected")
    revision = gauge("revision")
    serverRevision = gauge("server_revision")
    sinceContact = gauge("seconds_since_contact")
    reads = counter("reads_total")
    watches = counter("watches_total")
    compactions = counter("compactions_total")
    authentications = counter("authentications_total")
    last = LastStatus()
  }

  /// Records the layer's status every `interval` until the task is cancelled.
  public func run(every interval: Duration = .seconds(1)) async {
    while !Task.isCancelled {
      record()
      try? await Task.sleep(for: interval)
    }
  }

  /// Records the layer's status now.
  public func record() {
    let status = layer.status
    let before = last.value.withLock { last in
      defer { last = status }
      return last
    }
    connected.record(status.isWatching ? 1 : 0)
    revision.record(status.revision)
    serverRevision.record(status.serverRevision)
    if let since = status.sinceLastContact() {
      let (seconds, attoseconds) = since.components
      sinceContact.record(Double(seconds) + Double(attoseconds) / 1e18)
    }
    func grow(_ counter: Counter, _ value: (EtcdStatus) -> Int) {
      let added = value(status) - (before.map(value) ?? 0)
      if added > 0 { counter.increment(by: added) }
    }
    grow(reads, \.reads)
    grow(watches, \.watchesOpened)
    grow(compactions, \.compactions)
    grow(authentications, \.authentications)
  }
}

/// The status an ``EtcdMetrics`` recorded last, shared by its copies.
private final class LastStatus: Sendable {
  let value = Mutex<EtcdStatus?>(nil)
}
