import Glibc

extension SettingsStore {
  /// Listens to every layer's signals and reloads what changed, until the task is cancelled (shaped
  /// like a swift-service-lifecycle `Service`).
  ///
  /// File layers hear from one inotify watcher for the whole store, and load again on the watcher's
  /// thread as soon as an edit is seen (settings' streams and observers hear of it from there); a layer
  /// that pushes its own signals (a remote source) is listened to by this task, and one that must wait
  /// to load is fetched when the loop starts and after each of its signals. A file whose content is
  /// unchanged (a `touch`, an identical rewrite, the echo of the store's own write) changes nothing.
  /// Watcher fallbacks are reported as ``StoreEvent/watcherFallback(path:message:)`` events.
  /// - Parameters:
  ///   - reloadOnHangup: also read everything again on `SIGHUP` (installs a process-wide handler; see
  ///     ``catchHangupSignals()`` to catch one that comes during start-up).
  ///   - systemd: tells systemd `READY=1` once every layer listens, `RELOADING=1` and `READY=1`
  ///     around each reload request, and the generation as `STATUS=` (for `Type=notify-reload` units).
  ///   - onReady: called once every layer listens: changes from then on are seen.
  public func run(
    reloadOnHangup: Bool = false, notifying systemd: SystemdNotifier? = nil,
    onReady: @Sendable () -> Void = {}
  ) async {
    await run(
      watcher: FileWatcher(), reloadRequests: reloadOnHangup ? InotifyHub.shared.hangups() : nil,
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
  func run(
    watcher: FileWatcher, reloadRequests: AsyncStream<Void>? = nil, systemd: SystemdNotifier? = nil,
    onReady: @Sendable () -> Void = {}
  ) async {
    let files = FileSignals(watcher: watcher, resolvePath: stack.options.resolvePath)
    let (signals, continuation) = AsyncStream<Signal>.makeStream()
    await withTaskCancellationHandler {
      await withTaskGroup(of: Void.self) { group in
        let waiting = await fetchWaitingLayers(nil)
        if !waiting.isEmpty { rebuild(reloading: Set(waiting.keys), fetched: waiting) }
        var listening: Set<Int> = []
        for (index, layer) in stack.layers.enumerated() {
          let watch = LayerWatch(paths: paths(ofLayer: index), options: stack.options, files: files)
          state.withLock { $0.watches[index] = watch }
          if layer is any SignalsFromFiles {
            // A file layer loads on the watcher's thread as soon as its edit is seen: no task hop
            // between the kernel's event and the new values (each costs a thread wake-up). Reloads
            // stay serialized by `rebuild`; events that come meanwhile wait in the kernel's queue and
            // are read as one batch.
            files.subscribe(
              watch,
              receive: { change in
                switch change {
                case .changed: self.reloadFileLayer(index, systemd: systemd)
                case .fallback: continuation.yield(.layer(index, change))
                }
              })
            listening.insert(index)
            continue
          }
          guard let changes = layer.changes(watch) else { continue }
          if !layer.loadsAsynchronously { listening.insert(index) }
          group.addTask {
            for await change in changes { continuation.yield(.layer(index, change)) }
          }
        }
        if let reloadRequests {
          group.addTask {
            for await _ in reloadRequests { continuation.yield(.everything) }
          }
        }
        // An edit made after the store's first load and before its watch was set was not seen: read
        // those layers once more now that every watch is set (an unchanged file costs a read and a hash).
        if !listening.isEmpty { rebuild(reloading: listening, reportsDiagnostics: false) }
        reportNewDiagnostics()
        onReady()
        systemd?.ready(status: systemdStatus)
        for await signal in signals {
          switch signal {
          case .layer(_, .fallback(let fallback)):
            emit(.watcherFallback(path: fallback.path, message: fallback.message))
          case .layer(let index, .changed):
            let generation = self.generation
            await reload(layers: [index])
            if self.generation != generation { systemd?.status(systemdStatus) }
          case .everything:
            systemd?.reloading()
            await reload(layers: nil)
            systemd?.ready(status: systemdStatus)
          }
        }
        group.cancelAll()
      }
    } onCancel: {
      files.stop()
      continuation.finish()
    }
    state.withLock { $0.watches = [:] }
  }

  /// What the run loop hears.
  private enum Signal: Sendable {
    /// A layer's signal, by index.
    case layer(Int, LayerChange)
    /// A reload request: read every layer again.
    case everything
  }

  /// Loads a file layer again after its watcher's signal, on the watcher's thread, and publishes what
  /// changed.
  private func reloadFileLayer(_ index: Int, systemd: SystemdNotifier?) {
    let generation = self.generation
    rebuild(reloading: [index])
    if self.generation != generation { systemd?.status(systemdStatus) }
  }

  /// Loads the layers at `indices` (all, for `nil`) again, awaiting those that must wait, and
  /// publishes what changed.
  private func reload(layers indices: Set<Int>?) async {
    let fetched = await fetchWaitingLayers(indices)
    rebuild(reloading: indices, fetched: fetched)
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

  /// The line `systemctl status` shows: the generation, and files that keep their last good contents.
  private var systemdStatus: String {
    let failed = Set(snapshot.diagnostics.filter { $0.severity == .error }.compactMap(\.error.path)).count
    return "configuration generation \(generation)"
      + (failed == 0 ? "" : "; \(failed) file\(failed == 1 ? "" : "s") failed to load, last good kept")
  }

  /// The paths of a layer's last contents.
  private func paths(ofLayer index: Int) -> [String] {
    state.withLock { $0.contents[index]?.paths ?? [] }
  }
}

/// `path` made absolute against the current directory.
func absolutePath(_ path: String) -> String {
  guard !path.hasPrefix("/") else { return path }
  var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
  guard getcwd(&buffer, buffer.count) != nil else { return path }
  let directory = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
  return joinPath(directory, path.hasPrefix("./") ? String(path.dropFirst(2)) : path)
}
