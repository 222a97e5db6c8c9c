import Strata

/// `config-dump --watch`: the lines printed after the dump, as the configuration changes.
extension DumpCommand {
  /// Stays running after the dump and prints one JSON line per change and per error, until SIGINT or
  /// SIGTERM. With a schema, its settings are declared in the store as the program declares them, so the
  /// values shown are the program's running values: a live edit it rejects keeps the last good value,
  /// and a `"kept"` line says so.
  ///
  /// `watched` is made before the dump, and the dump prints its first snapshot: the values the watch
  /// starts from are the ones shown, so an edit made while config-dump starts is a live edit of those.
  func watch(
    _ watched: WatchedStore, from dumped: Snapshot?, schema: SettingsSchema?,
    output: @escaping @Sendable (String) -> Void
  ) async {
    let stack = watched.stack
    let store = watched.store
    let declared = watched.declared
    let dumped = dumped ?? store.snapshot
    let restartRequired = Set(
      schema?.entries.filter { $0.traits.contains(.restartRequired) }.map(\.key) ?? [])
    @Sendable func view(_ snapshot: Snapshot) -> Snapshot {
      guard let schema else { return snapshot }
      let applied = schema.applied(
        to: snapshot, resolvePath: stack.options.resolvePath, placesToSet: { stack.placesToSet(key: $0) })
      return declared?.holdingKeptValues(in: applied) ?? applied
    }
    @Sendable func isHidden(_ key: String) -> Bool { !arguments.showSecrets && hides(key, schema: schema) }
    // What the program keeps over a rejected edit, once per edit: `{"key": …, "kept": 4096, "rejected": "80a"}`.
    @Sendable func printKept(_ state: inout LastPrinted.State) {
      let kept = declared?.keptValues ?? [:]
      let raw = store.snapshot
      for key in kept.keys.sorted() {
        guard let running = kept[key], let rejected = raw.value(forKey: key) else { continue }
        if let told = state.kept[key], told == rejected, told.origin == rejected.origin { continue }
        state.kept[key] = rejected
        output(
          WatchLines.kept(
            generation: raw.generation, key: key, running: running, rejected: rejected, hidden: isHidden(key))
            + "\n")
      }
      state.kept = state.kept.filter { kept[$0.key] != nil }
    }
    // The snapshot last printed; events come from the store's run loop, one at a time, but the lock
    // keeps that from being a promise this code relies on.
    let printed = LastPrinted(view(dumped))
    @Sendable func printChanges(_ state: inout LastPrinted.State) {
      let previous = state.snapshot
      let current = view(store.snapshot)
      // Keys that appear later with a secret's name are redacted too, and so is the last value of one
      // that was removed.
      let lines = WatchLines.changes(
        from: previous, to: current, hiding: isHidden,
        redactingSecretSources: !arguments.showSecrets, restartRequiredKeys: restartRequired)
      for line in lines { output(line + "\n") }
      // Values the schema rejects (`port = 80a`) are errors of the typed view, not of any file: say so
      // too. (A file's own errors come as `failed` events, edits the program rejects as `rejected` ones.)
      let known = Set(previous.diagnostics)
      let fileErrors = Set(store.snapshot.diagnostics)
      for diagnostic in current.diagnostics
      where diagnostic.severity == .error && !known.contains(diagnostic) && !fileErrors.contains(diagnostic)
        && !state.failures.contains(where: {
          $0.location == diagnostic.error.location
            && $0.message.hasPrefix(diagnostic.error.message)
        })
      {
        output(WatchLines.error(diagnostic.error) + "\n")
      }
      state.snapshot = current
      printKept(&state)
    }
    // What changed between the dump and this store's first read shows now; what changes between that
    // and the watches being set is caught by one more read once ready.
    printed.withLock { printChanges(&$0) }
    // Each line is written from the reload that caused it, on the store's run loop: no task hop between
    // the edit and its line (the catalog's IncrementalReloadDesign article).
    store.observeEvents { event in
      printed.withLock { state in
        switch event {
        case .reloaded: printChanges(&state)
        case .failed(let error), .rejected(let error):
          output(WatchLines.error(error) + "\n")
          state.failures.append(error)
          printKept(&state)
        case .recovered(let error):
          output(WatchLines.recovered(error) + "\n")
          state.failures.removeAll { $0.location == error.location }
        case .watcherFallback(let path, let message): output(WatchLines.warning(message, path: path) + "\n")
        case .pendingRestart, .diagnosed, .controlRefused, .overrideExpired: break
        }
      }
    }
    await store.run(reloadOnHangup: true, onReady: { store.reload() })
    withExtendedLifetime(declared) {}
  }

  /// The store `--watch` runs, with the schema's settings declared in it, made before the dump.
  func watchedStore(schema: SettingsSchema?) -> WatchedStore {
    let stack = stack(schema: schema)
    let store = SettingsStore(layers: stack.layers, options: stack.options)
    return WatchedStore(
      stack: stack, store: store, declared: schema.map { SchemaRunningValues(schema: $0, store: store) })
  }
}

/// The store `config-dump --watch` runs and the stack it was made from.
struct WatchedStore: Sendable {
  let stack: LayerStack
  let store: SettingsStore
  /// The schema's settings, declared in `store` while this lives.
  let declared: SchemaRunningValues?
}
