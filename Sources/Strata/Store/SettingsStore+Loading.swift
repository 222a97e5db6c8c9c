/// Loading the stack into a new snapshot, published in one step.
extension SettingsStore {
  /// Rebuilds the snapshot. The layers at the indices in `reloading` (all, for `nil`) are read again;
  /// the others keep their last contents, except layers that read the layers below (the environment),
  /// which load again whenever something changed (their known keys may have grown). Loading happens outside the state lock; the new snapshot is
  /// published in one step, then settings are told, outside every lock.
  /// - Parameters:
  ///   - fetched: contents already fetched for some of those layers (asynchronous ones).
  ///   - reportsDiagnostics: whether subscribers hear of new problems now (settings being declared
  ///     leave that to the run loop's start: a walk of every key per group would cost too much).
  func rebuild(reloading: Set<Int>?, fetched: [Int: LayerContents] = [:], reportsDiagnostics: Bool = true) {
    let loaded = rebuildLock.withLock { count in
      count += 1
      return load(reloading: reloading, fetched: fetched)
    }
    guard let (previous, published, changes) = loaded else { return }
    publish(published, changes: changes)
    announce(changes, from: previous, to: published)
    if reportsDiagnostics { reportNewDiagnostics() }
  }

  /// Loads the stack and publishes the new snapshot, if it differs from the current one; returns both
  /// and what changed. Called with `rebuildLock` held, so the current snapshot cannot change meanwhile.
  private func load(
    reloading: Set<Int>?, fetched: [Int: LayerContents]
  ) -> (previous: Snapshot, published: Snapshot, changes: Snapshot.Changes)? {
    let (previous, declared, runtime, secretKeys) = state.withLock {
      ($0.contents, $0.registry.declared, $0.runtime, $0.registry.secretKeys)
    }
    let loaded = StackLoader(layers: stack.layers, options: stack.options).load(
      previous: previous, reloading: reloading, fetched: fetched, declared: declared, cache: cache)
    let contents = loaded.contents
    var sources = loaded.sources
    let diagnostics = loaded.diagnostics
    if runtime.table?.isEmpty == false {
      sources.append(Snapshot.Source(scope: .runtime, document: Document(path: "runtime", root: runtime)))
    }
    let current = snapshot
    let candidate = Snapshot(
      generation: current.generation + 1, sources: sources, diagnostics: diagnostics, secretKeys: secretKeys)
    // The sources, not only the merged root (which they determine): a hidden lower value that changed
    // is what a setting falls back to when the value above it does not convert.
    let changes = candidate.changes(since: current)
    let isNew =
      changes.sourcesDiffer || candidate.diagnostics != current.diagnostics
      || candidate.declaredSecretKeys != current.declaredSecretKeys || current.generation == 0
    if isNew {
      // The counter moves inside the snapshot's lock: a read that resolves from `snapshot` (under that
      // lock) then sees the counter at least at its generation, so another setting's cached value of
      // the generation before no longer counts as current (a read after it never goes back).
      published.withLock { published in
        published = candidate
        generationCounter.store(candidate.generation, ordering: .releasing)
      }
    }
    let watches = state.withLock { state in
      state.contents = contents
      return state.watches
    }
    // Layers that watch files follow their new paths (an include added, a drop-in directory created).
    for (index, watch) in watches { watch.update(contents[index]?.paths ?? []) }
    return isNew ? (current, candidate, changes) : nil
  }

  /// The context a layer loads with now: the declared keys and the documents of the layers below.
  func loadContext(forLayer index: Int) -> LoadContext {
    let (contents, declared) = state.withLock { ($0.contents, $0.registry.declared) }
    let lower =
      stack.layers[index].readsLowerLayers ? contents[..<index].compactMap { $0 }.flatMap(\.documents) : []
    return LoadContext(options: stack.options, declared: declared, lowerDocuments: lower, cache: cache)
  }
}
