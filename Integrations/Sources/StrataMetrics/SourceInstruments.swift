import CoreMetrics
import Strata
import Synchronization

/// The per-source instruments of one ``StoreMetrics``: made when a source first fails, one pair per
/// source (a file path, or a layer's name), so that their number is the number of sources that ever
/// failed, not of events.
final class SourceInstruments: Sendable {
  private let prefix: String
  private let dimensions: [(String, String)]
  private let factory: any MetricsFactory
  private let made = Mutex<[String: (failures: Counter, failing: Gauge)]>([:])

  init(prefix: String, dimensions: [(String, String)], factory: any MetricsFactory) {
    self.prefix = prefix
    self.dimensions = dimensions
    self.factory = factory
  }

  /// The source an error names: its file, else `unknown`.
  static func source(of error: StrataError) -> String { error.path ?? "unknown" }

  /// Counts a failure of the source `error` names, and marks it failing.
  func failed(_ error: StrataError) {
    let instruments = instruments(for: Self.source(of: error))
    instruments.failures.increment()
    instruments.failing.record(1)
  }

  /// Marks the source `error` names as loading again, when it failed before.
  func recovered(_ error: StrataError) {
    let source = Self.source(of: error)
    made.withLock { $0[source] }?.failing.record(0)
  }

  private func instruments(for source: String) -> (failures: Counter, failing: Gauge) {
    made.withLock { made in
      if let existing = made[source] { return existing }
      let labels = dimensions + [("source", source)]
      let pair = (
        failures: Counter(label: prefix + "source_failures_total", dimensions: labels, factory: factory),
        failing: Gauge(label: prefix + "source_failing", dimensions: labels, factory: factory)
      )
      made[source] = pair
      return pair
    }
  }
}
