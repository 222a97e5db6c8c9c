import Strata

extension LayerConformance {
  /// Check 3: a fetch in a cancelled task returns, and cancelling the task that runs a store's run loop
  /// over the layer ends it.
  func checkCancellation(timeout: Duration) async -> [Failure] {
    let layer = self.layer
    let context = self.context
    var failures: [Failure] = []
    if case .timedOut = await bounded(by: Deadline(timeout), cancelled: true, { await layer.fetch(context) })
    {
      failures.append(Failure(.cancellation, "a fetch in a cancelled task did not return within \(timeout)"))
    }
    let store = SettingsStore(layers: [layer], options: options)
    defer { store.shutdown() }
    let ready = Shared(false)
    let ended = Shared(false)
    let running = Task {
      await store.run(onReady: { ready.value = true })
      ended.value = true
    }
    defer { running.cancel() }
    if !(await Deadline(timeout).wait { ready.value }) {
      failures.append(
        Failure(.cancellation, "the store's run loop over the layer was not ready within \(timeout)"))
    }
    running.cancel()
    if !(await Deadline(timeout).wait { ended.value }) {
      failures.append(
        Failure(
          .cancellation,
          "the store's run loop over the layer did not end within \(timeout) of its cancellation"))
    }
    return failures
  }
}
