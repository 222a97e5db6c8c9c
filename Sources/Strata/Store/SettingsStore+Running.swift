import StrataPlatform

extension SettingsStore {
  /// Listens to every layer's signals and reloads what changed, until the task is cancelled (shaped
  /// like a swift-service-lifecycle `Service`).
  ///
  /// Every layer's ``Layer/follow(_:signal:)`` runs as a child of this task (file layers hear from one
  /// watcher for the whole store); a signal only notes that the layer may have changed, and this task
  /// reads what signalled (fetching layers that must wait), coalescing signals that come meanwhile, and
  /// publishes and announces each generation through the store's one pipeline, in order. The watcher's
  /// thread never reads a file or runs user code. A file whose content is unchanged (a `touch`, an
  /// identical rewrite, the echo of the store's own write) changes nothing. Watcher fallbacks are
  /// reported as ``StoreEvent/watcherFallback(path:message:)`` events. Cancelling the task ends every
  /// layer's `follow`.
  /// - Parameters:
  ///   - reloadOnHangup: also read everything again on `SIGHUP` (installs a process-wide handler; see
  ///     ``catchHangupSignals()`` to catch one that comes during start-up).
  ///   - systemd: tells systemd `READY=1` once every layer listens, `RELOADING=1` and `READY=1`
  ///     around each reload request, and the generation as `STATUS=` after each new generation (for
  ///     `Type=notify-reload` units); a notification never holds up a reload.
  ///   - onReady: called once every layer listens: changes from then on are seen.
  public func run(
    reloadOnHangup: Bool = false, notifying systemd: SystemdNotifier? = nil,
    onReady: @Sendable () -> Void = {}
  ) async {
    await run(
      watcher: FileWatcher(), reloadRequests: reloadOnHangup ? WatcherHub.shared.hangups() : nil,
      systemd: systemd, onReady: onReady)
  }

  /// ``run(reloadOnHangup:notifying:onReady:)``, reading everything again at each element of
  /// `reloadRequests` (swift-service-lifecycle's `UnixSignalsSequence` for `SIGHUP`, mapped to `()`,
  /// say) instead of handling a signal itself.
  public func run<Requests: AsyncSequence & Sendable>(
    reloadRequests: Requests, notifying systemd: SystemdNotifier? = nil, onReady: @Sendable () -> Void = {}
  ) async where Requests.Element == Void {
    let (stream, continuation) = AsyncStream<Void>.makeStream()
    let forwarding = Task {
      do {
        for try await _ in reloadRequests { continuation.yield() }
      } catch {}
      continuation.finish()
    }
    defer { forwarding.cancel() }
    await run(watcher: FileWatcher(), reloadRequests: stream, systemd: systemd, onReady: onReady)
  }

  /// The run loop, with a given watcher (tests drive one with `pump()`).
  ///
  /// Each layer's ``Layer/follow(_:signal:)`` runs as a child task; its signals (from any thread, the
  /// watcher's included) are only noted and coalesced in ``SourceSignals``, and this task takes them,
  /// awaits what asynchronous layers fetch, and hands the reload to the store's pipeline, which runs it
  /// on the store's ``WorkerThread``.
  func run(
    watcher: FileWatcher, reloadRequests: AsyncStream<Void>? = nil, systemd: SystemdNotifier? = nil,
    onReady: @Sendable () -> Void = {}
  ) async {
    let files = FileSignals(watcher: watcher, resolvePath: stack.options.resolvePath)
    let worker = WorkerThread()
    let immediate = Set(stack.layers.indices.filter { !stack.layers[$0].loadsAsynchronously })
    let signals = SourceSignals(immediate: immediate, worker: worker) { [weak self] layers in
      self?.runPipeline(.reload(layers))
    }
    let retries = RetrySchedule(clock: cache.units.clock)
    // The unit rule's grace is the watcher's: a target missing that long is reported, and gone.
    cache.units.grace = watcher.core.grace
    state.withLock { state in
      state.notifier = systemd
      state.worker = worker
      state.retries = retries
    }
    await withTaskCancellationHandler {
      await withTaskGroup(of: Void.self) { group in
        let waiting = await fetchWaitingLayers(nil)
        if !waiting.isEmpty { await runPipeline(.reload(Set(waiting.keys), fetched: waiting)) }
        var watched: Set<Int> = []
        for (index, layer) in stack.layers.enumerated() {
          let watch = LayerWatch(paths: paths(ofLayer: index), options: stack.options, files: files)
          // The paths are watched from now on, before the layer's `follow` runs: what the watcher sees
          // meanwhile waits in the watch until the layer follows it.
          files.subscribe(watch, receive: { watch.deliver($0) }, finish: { watch.finish() })
          state.withLock { $0.watches[index] = watch }
          if !watch.paths.isEmpty && !layer.loadsAsynchronously { watched.insert(index) }
          group.addTask {
            await layer.follow(watch) { change in signals.signal(change, fromLayer: index) }
          }
        }
        if let reloadRequests {
          group.addTask {
            for await _ in reloadRequests { signals.requestReload() }
          }
        }
        group.addTask {
          await retries.run { index in signals.signal(.changed, fromLayer: index) }
        }
        retries.update(state.withLock { $0.contents })
        // An edit made after the store's first load and before its watch was set was not seen: read
        // those layers once more now that every watch is set (an unchanged file costs a read and a hash).
        if !watched.isEmpty { await runPipeline(.reload(watched, reportsDiagnostics: false)) }
        await runPipeline(PipelineWork(reportsStanding: true))
        onReady()
        systemd?.ready(status: systemdStatus)
        for await _ in signals.wakes {
          await serve(signals.take(), systemd: systemd)
        }
        group.cancelAll()
      }
    } onCancel: {
      files.stop()
      signals.finish()
      retries.finish()
    }
    state.withLock { state in
      state.watches = [:]
      state.notifier = nil
      state.worker = nil
      state.retries = nil
    }
    worker?.stop()
  }

  /// Reads what signalled (every layer, for a reload request), awaiting layers that must wait, and
  /// publishes it through the pipeline with the fallbacks noted.
  private func serve(_ taken: SourceSignals.Taken, systemd: SystemdNotifier?) async {
    if taken.everything { systemd?.reloading() }
    let layers: Set<Int>? = taken.everything ? nil : taken.layers
    var work = PipelineWork(
      events: taken.fallbacks.map { .watcherFallback(path: $0.path, message: $0.message) })
    if layers?.isEmpty != true {
      work.reload = PipelineWork.Reload(layers: layers, fetched: await fetchWaitingLayers(layers))
    }
    await runPipeline(work)
    if taken.everything { systemd?.ready(status: systemdStatus) }
  }

  /// Fetches the layers among `indices` (all, for `nil`) that load asynchronously.
  private func fetchWaitingLayers(_ indices: Set<Int>?) async -> [Int: LayerContents] {
    var fetched: [Int: LayerContents] = [:]
    for (index, layer) in stack.layers.enumerated()
    where layer.loadsAsynchronously && (indices?.contains(index) ?? true) {
      fetched[index] = await layer.fetch(loadContext(forLayer: index))
    }
    return fetched
  }

  /// The paths of a layer's last contents.
  private func paths(ofLayer index: Int) -> [String] {
    state.withLock { $0.contents[index]?.paths ?? [] }
  }
}
