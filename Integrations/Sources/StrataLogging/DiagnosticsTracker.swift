import Strata

/// Which of a store's diagnostics were logged already, so that each is logged once while it lasts and
/// again if it comes back after being fixed.
///
/// A stopgap: the store does not yet report every diagnostic as an event, so the list is compared after
/// each reload. It goes when `StoreEvent.diagnosed` exists.
struct DiagnosticsTracker {
  /// The descriptions of the diagnostics logged and still present.
  private var logged: Set<String> = []

  /// The diagnostics of `current` not logged yet; those no longer present are forgotten.
  mutating func newDiagnostics(in current: [Diagnostic]) -> [Diagnostic] {
    let descriptions = Set(current.map(Self.identity))
    logged.formIntersection(descriptions)
    var fresh: [Diagnostic] = []
    for diagnostic in current where logged.insert(Self.identity(diagnostic)).inserted {
      fresh.append(diagnostic)
    }
    return fresh
  }

  /// Records a diagnostic reported another way (a `failed` event), so it is not logged twice.
  mutating func noteReported(_ diagnostic: Diagnostic) {
    logged.insert(Self.identity(diagnostic))
  }

  /// What makes two diagnostics the same: severity and error, not how often it occurred.
  private static func identity(_ diagnostic: Diagnostic) -> String {
    "\(diagnostic.severity.rawValue) \(diagnostic.error)"
  }
}
