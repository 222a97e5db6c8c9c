import CoreMetrics
import Strata

/// The counters and gauges of one ``StoreMetrics``, made once.
struct Instruments: Sendable {
  let reloadsOK: Counter
  let reloadsFailed: Counter
  let rejectedValues: Counter
  let recoveries: Counter
  let diagnosticErrors: Counter
  let diagnosticWarnings: Counter
  let diagnosticNotes: Counter
  let watcherFallbacks: Counter
  let pendingRestarts: Gauge
  let failingSources: Gauge
  let generation: Gauge
  let keys: Gauge
  let lastReload: Gauge

  init(prefix: String, dimensions: [(String, String)], factory: any MetricsFactory) {
    func counter(_ name: String, _ extra: [(String, String)] = []) -> Counter {
      Counter(label: prefix + name, dimensions: dimensions + extra, factory: factory)
    }
    func gauge(_ name: String) -> Gauge {
      Gauge(label: prefix + name, dimensions: dimensions, factory: factory)
    }
    reloadsOK = counter("reloads_total", [("result", "ok")])
    reloadsFailed = counter("reloads_total", [("result", "failed")])
    rejectedValues = counter("rejected_values_total")
    recoveries = counter("recoveries_total")
    diagnosticErrors = counter("diagnostics_total", [("severity", "error")])
    diagnosticWarnings = counter("diagnostics_total", [("severity", "warning")])
    diagnosticNotes = counter("diagnostics_total", [("severity", "note")])
    watcherFallbacks = counter("watcher_fallbacks_total")
    pendingRestarts = gauge("pending_restarts")
    failingSources = gauge("failing_sources")
    generation = gauge("generation")
    keys = gauge("keys")
    lastReload = gauge("last_reload_timestamp_seconds")
  }

  /// The counter of diagnostics of `severity`.
  func diagnostics(_ severity: Diagnostic.Severity) -> Counter {
    switch severity {
    case .error: diagnosticErrors
    case .warning: diagnosticWarnings
    case .note: diagnosticNotes
    }
  }
}
