import StrataPlatform

extension SettingsStore {
  /// Listens to every layer's signals and reloads what changed, until the task is cancelled (shaped
  /// like a swift-service-lifecycle `Service`).
  ///
  /// The store watches the files of every layer (one watcher for the whole store), and every layer's
  /// ``Layer/follow(signal:)`` runs as a child of this task. A change only says that a layer may have
  /// changed: the store's one reload loop reads it, coalescing changes that come meanwhile, and publishes
  /// and announces each generation in order, on the loop's thread (this task fetches the layers that
  /// must wait first). The watcher's thread never reads a file or runs user code. A file whose content is unchanged (a `touch`, an
  /// identical rewrite, the echo of the store's own write) changes nothing. Watcher fallbacks are
  /// reported as ``StoreEvent/watcherFallback(path:message:)`` events. Cancelling the task ends every
  /// layer's `follow`.
  /// - Parameters:
  ///   - reloadOnHangup: also read everything again on `SIGHUP` (installs a process-wide handler; see
  ///     ``catchHangupSignals()`` to catch one that comes during start-up).
  ///   - notifySystemd: tell systemd, over the `NOTIFY_SOCKET` it gives the process, `READY=1` once every
  ///     layer listens, `RELOADING=1` and `READY=1` around each reload request, the generation as
  ///     `STATUS=` after each new generation, and `STOPPING=1` when the run ends (for
  ///     `Type=notify-reload` units; see <doc:Deploying>). Outside systemd it does nothing, and a
  ///     notification never holds up a reload.
  ///   - onReady: called once every layer listens: changes from then on are seen.
  ///   - healthCheck: the program's health, asked every tenth of `rollbackWindow` (between 50 ms and
  ///     5 s): when it turns `false` within `rollbackWindow` of a generation that changed values since
  ///     it was last `true`, that generation is rolled back (see <doc:OperatingAService>).
  ///   - rollbackWindow: how long after a generation a failing health check rolls it back.
  public func run(
    reloadOnHangup: Bool = false, notifySystemd: Bool = false,
    onReady: @Sendable () -> Void = {}, healthCheck: (@Sendable () async -> Bool)? = nil,
    rollbackWindow: Duration = .seconds(30)
  ) async {
    await run(
      watcher: FileWatcher(), reloadRequests: reloadOnHangup ? WatcherHub.shared.hangups() : nil,
      systemd: notifySystemd ? SystemdNotifier() : nil, onReady: onReady,
      health: healthCheck.map { ($0, rollbackWindow) })
  }

  /// ``run(reloadOnHangup:notifySystemd:onReady:healthCheck:rollbackWindow:)``, reading everything again at each element of
  /// `reloadRequests` (swift-service-lifecycle's `UnixSignalsSequence` for `SIGHUP`, mapped to `()`,
  /// say) instead of handling a signal itself.
  public func run<Requests: AsyncSequence & Sendable>(
    reloadRequests: Requests, notifySystemd: Bool = false, onReady: @Sendable () -> Void = {},
    healthCheck: (@Sendable () async -> Bool)? = nil, rollbackWindow: Duration = .seconds(30)
  ) async where Requests.Element == Void {
    let (stream, continuation) = AsyncStream<Void>.makeStream()
    let forwarding = Task {
      do {
        for try await _ in reloadRequests { continuation.yield() }
      } catch {}
      continuation.finish()
    }
    defer { forwarding.cancel() }
    await run(
      watcher: FileWatcher(), reloadRequests: stream, systemd: notifySystemd ? SystemdNotifier() : nil,
      onReady: onReady,
      health: healthCheck.map { ($0, rollbackWindow) })
  }

  /// The run loop, with a given watcher (tests drive one with `pump()`).
  ///
  /// The watcher's batches, and the signals of layers that load without waiting, go straight to the
  /// store's loop as reloads of the layers concerned (``ReloadLoop/post(_:)``: no task in between);
  /// this task fetches the layers that must wait, and serves reload requests, through the same loop.
  func run(
    watcher: FileWatcher, reloadRequests: AsyncStream<Void>? = nil, systemd: SystemdNotifier? = nil,
    onReady: @Sendable () -> Void = {},
    health: (check: @Sendable () async -> Bool, window: Duration)? = nil
  ) async {
    let loop = self.loop
    let requests = FetchRequests()
    let fetched = Set(stack.layers.indices.filter { stack.layers[$0].loadsAsynchronously })
    let changed: @Sendable (Int) -> Void = { index in
      if fetched.contains(index) { requests.fetch(index) } else { loop.post(.reload([index])) }
    }
    // Watches that fell back to polling while the store starts are told once it is ready (with
    // `onReady`'s listeners), the later ones at once.
    let startingFallbacks = Locked<[WatcherFallback]?>([])
    let files = FileSignals(
      watcher: watcher, resolvePath: stack.options.resolvePath,
      changed: { layers in loop.post(.reload(layers)) },
      fallback: { fallback in
        let held = startingFallbacks.withLock { held in
          held?.append(fallback)
          return held != nil
        }
        if !held { loop.post(PipelineWork(events: [Self.event(of: fallback)])) }
      })
    let retries = RetrySchedule(clock: cache.units.clock)
    // The unit rule's grace is the watcher's: a target missing that long is reported, and gone.
    cache.units.grace = watcher.core.grace
    loop.hold()
    defer { loop.release() }
    state.withLock { state in
      state.notifier = systemd
      state.files = files
      state.retries = retries
    }
    startHistory()
    defer { stopHistory() }
    await withTaskCancellationHandler {
      await withTaskGroup(of: Void.self) { group in
        let waiting = await fetchWaitingLayers(nil)
        if !waiting.isEmpty { await loop.run(.reload(Set(waiting.keys), fetched: waiting)) }
        // The files of every layer that loads without waiting are watched from now on; each load after
        // this one watches the paths it read.
        let watched = Set(stack.layers.indices).subtracting(fetched)
        for index in watched.sorted() { files.watch(paths(ofLayer: index), ofLayer: index) }
        for (index, layer) in stack.layers.enumerated() {
          group.addTask { await layer.follow { changed(index) } }
        }
        if let reloadRequests {
          group.addTask {
            for await _ in reloadRequests { requests.everything() }
          }
        }
        group.addTask {
          await retries.run { index in changed(index) }
        }
        retries.update(state.withLock { $0.contents })
        // An edit made after the store's first load and before its watch was set was not seen: read
        // those layers once more now that every watch is set (an unchanged file costs a read and a hash).
        let watching = watched.filter { !paths(ofLayer: $0).isEmpty }
        if !watching.isEmpty { await loop.run(.reload(watching, reportsDiagnostics: false)) }
        await loop.run(PipelineWork(reportsStanding: true))
        onReady()
        systemd?.ready(status: systemdStatus)
        if let health {
          let interval = min(max(health.window / 10, .milliseconds(50)), .seconds(5))
          group.addTask { await self.watchHealth(health.check, window: health.window, interval: interval) }
        }
        let fallbacks = startingFallbacks.withLock { held in
          defer { held = nil }
          return held ?? []
        }
        if !fallbacks.isEmpty { loop.post(PipelineWork(events: fallbacks.map(Self.event(of:)))) }
        for await _ in requests.wakes {
          await serve(requests.take(), systemd: systemd)
        }
        group.cancelAll()
      }
    } onCancel: {
      files.stop()
      requests.finish()
      retries.finish()
    }
    // A batch the loop was in when the run ended (a generation being published) finishes first, so that
    // the history, ended next, records it.
    await loop.run(PipelineWork())
    // The run ends when its task is cancelled: the service is stopping.
    systemd?.stopping()
    state.withLock { state in
      state.files = nil
      state.notifier = nil
      state.retries = nil
    }
  }

  /// Fetches what was requested (every layer, for a reload request) and publishes it through the loop.
  private func serve(_ taken: FetchRequests.Taken, systemd: SystemdNotifier?) async {
    if taken.everything { systemd?.reloading() }
    let layers: Set<Int>? = taken.everything ? nil : taken.layers
    await loop.run(.reload(layers, fetched: await fetchWaitingLayers(layers)))
    if taken.everything { systemd?.ready(status: systemdStatus) }
  }

  /// The event that tells of a watch that fell back to polling.
  private static func event(of fallback: WatcherFallback) -> StoreEvent {
    .watcherFallback(path: fallback.path, message: fallback.message)
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

extension SettingsStore {
  /// Catches `SIGHUP` from now on, so that a reload request (`systemctl reload`, `kill -HUP`) that
  /// arrives while the program is still starting — loading a large configuration, say — is queued
  /// instead of ending the process (the default action of `SIGHUP`). The queued request is served
  /// when ``run(reloadOnHangup:notifySystemd:onReady:healthCheck:rollbackWindow:)`` starts with `reloadOnHangup: true`.
  ///
  /// Call it first thing in `main`, before creating stores. It installs a process-wide handler, once;
  /// later calls do nothing. `run(reloadOnHangup: true)` installs the same handler if it was not.
  /// - Returns: `false` when the handler could not be installed.
  @discardableResult
  public static func catchHangupSignals() -> Bool {
    Hangup.readDescriptor() != nil
  }
}
