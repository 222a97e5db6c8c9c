import Strata

extension LayerConformance {
  /// The checks made through a store running over the layer: its run loop gets ready; after `change`,
  /// a reload that shows the change; after `breakIt`, an error with a position, the last good values
  /// kept, and a `failed` event; and cancelling the task that runs the loop ends it. One run serves
  /// them all, since a source may offer its change stream once.
  func checkRunningStore(timeout: Duration) async -> [Failure] {
    let store = SettingsStore(layers: [layer], options: options)
    defer { store.shutdown() }
    let events = Shared<[StoreEvent]>([])
    let stream = store.events
    let collecting = Task {
      for await event in stream { events.update { $0.append(event) } }
    }
    defer { collecting.cancel() }
    let ready = Shared(false)
    let ended = Shared(false)
    let running = Task {
      await store.run(onReady: { ready.value = true })
      ended.value = true
    }
    defer { running.cancel() }
    var failures: [Failure] = []
    // Waits for something that must happen end as soon as it does: a long deadline costs nothing when
    // the layer conforms, and a busy machine cannot turn a slow start into a failure. Only the checks
    // that wait for something that must not happen use `timeout` itself.
    let patience = max(timeout, .seconds(60))
    if await Deadline(patience).wait(until: { ready.value }) {
      if let change {
        failures += await checkChange(change, store: store, events: events, timeout: timeout)
      }
      if let breakIt {
        failures += await checkError(breakIt, store: store, events: events, timeout: timeout)
      }
    } else {
      failures.append(Failure(.run, "the store's run loop over the layer was not ready within \(patience)"))
    }
    running.cancel()
    if !(await Deadline(patience).wait { ended.value }) {
      failures.append(
        Failure(
          .cancellation,
          "the store's run loop over the layer did not end within \(patience) of its task's cancellation"))
    }
    return failures
  }

  /// Check 4: after `change`, the running store publishes a generation that shows it.
  private func checkChange(
    _ change: @escaping @Sendable () async throws -> Void, store: SettingsStore, events: Shared<[StoreEvent]>,
    timeout: Duration
  ) async -> [Failure] {
    let before = store.snapshot.root
    let generation = store.snapshot.generation
    switch await bounded(by: Deadline(timeout), change) {
    case .threw(let error): return [Failure(.change, "the change function threw: \(error)")]
    case .timedOut: return [Failure(.change, "the change function did not return within \(timeout)")]
    case .finished: break
    }
    let reloaded = await Deadline(timeout).wait {
      events.value.contains { event in
        if case .reloaded(let published, _, _) = event { return published > generation }
        return false
      }
    }
    guard reloaded else {
      return [
        Failure(
          .change,
          "no reload within \(timeout) of the change: the layer's follow(signal:) did not signal "
            + "(or the layer offers none)")
      ]
    }
    guard store.snapshot.root != before else {
      return [Failure(.change, "the store reloaded after the change, but its snapshot does not show it")]
    }
    return []
  }

  /// Check 5: after `breakIt`, loading reports an error with a path and a line; the store keeps its
  /// last good values and emits a `failed` event.
  private func checkError(
    _ breakIt: @escaping @Sendable () async throws -> Void, store: SettingsStore,
    events: Shared<[StoreEvent]>,
    timeout: Duration
  ) async -> [Failure] {
    let before = store.snapshot.root
    let failedBefore = events.value.filter(\.isFailure).count
    switch await bounded(by: Deadline(timeout), breakIt) {
    case .threw(let error): return [Failure(.error, "the breakIt function threw: \(error)")]
    case .timedOut: return [Failure(.error, "the breakIt function did not return within \(timeout)")]
    case .finished: break
    }
    var failures: [Failure] = []
    let layer = self.layer
    let context = self.context
    let loaded: LayerContents?
    if layer.loadsAsynchronously {
      if case .finished(let contents) = await bounded(by: Deadline(timeout), { await layer.fetch(context) }) {
        loaded = contents
      } else {
        loaded = nil
        failures.append(Failure(.error, "fetch did not return within \(timeout) once the source was broken"))
      }
    } else {
      loaded = layer.load(context)
    }
    if let loaded {
      let errors = loaded.diagnostics.filter { $0.severity == .error }.map(\.error)
      if errors.isEmpty {
        failures.append(
          Failure(.error, "once the source was broken, loading it reported no error diagnostic"))
      } else if !errors.contains(where: { $0.path != nil && $0.line > 0 }) {
        failures.append(
          Failure(
            .error,
            "once the source was broken, loading it reported errors without a path and a line: "
              + errors.map(\.description).joined(separator: "; ")))
      }
    }
    // A layer that waits is reloaded on its signal only; others are read again now.
    if !layer.loadsAsynchronously { await store.reload() }
    let failed = await Deadline(timeout).wait { events.value.filter(\.isFailure).count > failedBefore }
    if !failed {
      failures.append(
        Failure(.error, "the store emitted no failed event within \(timeout) of breaking the source"))
    }
    if store.snapshot.root != before {
      failures.append(
        Failure(.error, "the store did not keep the last good values once the source was broken"))
    }
    return failures
  }
}

extension StoreEvent {
  /// Whether this is a ``StoreEvent/failed(_:)`` event.
  fileprivate var isFailure: Bool {
    if case .failed = self { return true }
    return false
  }
}
