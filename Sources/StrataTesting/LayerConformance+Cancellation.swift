import Strata

extension LayerConformance {
  /// Check 3, first half: a fetch in a cancelled task returns (the second half, that a cancelled run
  /// loop ends, is in ``checkRunningStore(timeout:)``).
  func checkCancellation(timeout: Duration) async -> [Failure] {
    let layer = self.layer
    let context = self.context
    var failures: [Failure] = []
    if case .timedOut = await bounded(by: Deadline(timeout), cancelled: true, { await layer.fetch(context) })
    {
      failures.append(Failure(.cancellation, "a fetch in a cancelled task did not return within \(timeout)"))
    }
    return failures
  }
}
