import Synchronization

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// Loading the stack into a new snapshot, published in one step, through the store's reload loop.
extension SettingsStore {
  /// Runs `work` through the store's loop and returns once it is done (at once, from the loop's own
  /// work: an observer that writes).
  func runPipeline(_ work: PipelineWork) {
    loop.run(work)
  }

  /// Runs `work` through the store's loop; suspends, never blocks, until it is done.
  func runPipeline(_ work: PipelineWork) async {
    await loop.run(work)
  }

  /// Rebuilds the snapshot (see ``PipelineWork/Reload``) and waits for it to be published and
  /// announced.
  func rebuild(reloading: Set<Int>?, fetched: [Int: LayerContents] = [:], reportsDiagnostics: Bool = true) {
    runPipeline(.reload(reloading, fetched: fetched, reportsDiagnostics: reportsDiagnostics))
  }

  /// One batch of the loop, on its thread: new settings settle, then the layers that
  /// signalled load again into generation N, which is published to the settings and announced, all
  /// before the next batch starts; then the batch's other events.
  func perform(_ work: PipelineWork) {
    if !work.settle.isEmpty { settle(work.settle) }
    if let reload = work.reload { rebuild(reload) }
    for event in work.events { emit(event) }
    if work.reportsStanding { reportNewDiagnostics() }
  }

  /// Loads the layers of `reload` again (the others keep their last contents, except layers that read
  /// the layers below, such as the environment, which load again whenever something changed: their
  /// known keys may have grown); a new snapshot is published in one step, then settings are told, then
  /// subscribers.
  private func rebuild(_ reload: PipelineWork.Reload) {
    guard
      let (previous, published, changes, verdicts) = load(reloading: reload.layers, fetched: reload.fetched)
    else { return }
    let kept = publish(published, changes: changes)
    let ruleEvents = finishRules(verdicts)
    announce(changes, from: previous, to: published, keptKeys: kept)
    for event in ruleEvents { emit(event) }
    let rolledBack = Set(state.withLock { $0.health.rollback?.values.keys.map { $0 } } ?? [])
    recordHistory(
      changes, from: previous, to: published, keptKeys: kept, heldKeys: heldKeys(verdicts),
      rolledBack: rolledBack)
    if reload.reportsDiagnostics { reportNewDiagnostics() }
    if let systemd = state.withLock({ $0.notifier }) { systemd.status(systemdStatus) }
  }

  /// The line `systemctl status` shows: the generation, and files that keep their last good contents.
  var systemdStatus: String {
    let failed = Set(snapshot.diagnostics.filter { $0.severity == .error }.compactMap(\.error.path)).count
    let rejected = declaredSettings.filter { $0.standingRejection()?.keptRunningValue == true }.count
    return "configuration generation \(generation)"
      + (failed == 0 ? "" : "; \(failed) file\(failed == 1 ? "" : "s") failed to load, last good kept")
      + (rejected == 0
        ? ""
        : "; \(rejected) edit\(rejected == 1 ? "" : "s") rejected, running value\(rejected == 1 ? "" : "s") kept")
  }

  /// Loads the stack and publishes the new snapshot, if it differs from the current one; returns both
  /// and what changed. Runs on the store's loop, so the current snapshot cannot change meanwhile.
  private func load(
    reloading: Set<Int>?, fetched: [Int: LayerContents]
  ) -> (previous: Snapshot, published: Snapshot, changes: Snapshot.Changes, verdicts: RuleVerdicts)? {
    let (previous, declared, runtime, secretKeys) = state.withLock {
      $0.stackLoads += 1
      return ($0.contents, $0.registry.declared, $0.runtime, $0.registry.secretKeys)
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
    var candidate = Snapshot(
      generation: current.generation + 1, sources: sources, diagnostics: diagnostics, secretKeys: secretKeys)
    // A rollback standing (the service turned unhealthy after a generation) is a source above every
    // layer, unless an edit of its keys ended it.
    let (rollback, rollbackEnded) = rollbackSource(over: candidate)
    if let rollback {
      sources.append(rollback)
      candidate = Snapshot(
        generation: candidate.generation, sources: sources, diagnostics: diagnostics, secretKeys: secretKeys)
    }
    // The sources, not only the merged root (which they determine): a hidden lower value that changed
    // is what a setting falls back to when the value above it does not convert.
    var changes = candidate.changes(since: current)
    // Groups that break a rule with the layers' values keep their running values in this generation:
    // a source above every layer holds them (the rules are judged without it).
    var verdicts = judgeRules(candidate, changes)
    verdicts.rollbackEnded = rollbackEnded
    if let held = verdicts.heldValues {
      sources.append(
        Snapshot.Source(scope: .runtime, document: Document(path: Self.heldValuesPath, root: held)))
      candidate = Snapshot(
        generation: candidate.generation, sources: sources, diagnostics: diagnostics, secretKeys: secretKeys)
      changes = candidate.changes(since: current)
    }
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
    let (files, retries) = state.withLock { state in
      state.contents = contents
      if isNew { state.publishedAt = Date() }
      return (state.files, state.retries)
    }
    // Units that failed or went missing are read again by themselves, without another edit.
    retries?.update(contents)
    // The watcher follows the paths each layer read (an include added, a drop-in directory created).
    if let files {
      for (index, layer) in stack.layers.enumerated() where !layer.loadsAsynchronously {
        files.watch(contents[index]?.paths ?? [], ofLayer: index)
      }
    }
    return isNew ? (current, candidate, changes, verdicts) : nil
  }

  /// The context a layer loads with now: the declared keys and the documents of the layers below.
  func loadContext(forLayer index: Int) -> LoadContext {
    let (contents, declared) = state.withLock { ($0.contents, $0.registry.declared) }
    let lower =
      stack.layers[index].readsLowerLayers ? contents[..<index].compactMap { $0 }.flatMap(\.documents) : []
    return LoadContext(options: stack.options, declared: declared, lowerDocuments: lower, cache: cache)
  }
}
