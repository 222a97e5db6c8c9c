public import Logging
public import Strata
public import StrataLogging
import StrataServiceLifecycle
import Synchronization
public import Vapor

/// A store's run loop as a Vapor `LifecycleHandler`: it starts when the application boots, watches the
/// store's sources and reloads on `SIGHUP` while the application runs, and ends when it shuts down.
///
/// <!-- snippet: Integrations/StrataVapor/Tests/StrataVaporTests/DocSnippets/VaporSnippets.swift#SettingsStoreLifecycle -->
/// ```swift
/// let app = try await Application.make(environment)
/// app.lifecycle.use(SettingsStoreLifecycle(store: store, logger: app.logger))
/// try await app.execute()  // serves until SIGTERM or SIGINT
/// try await app.asyncShutdown()  // the store's run loop ends here
/// ```
///
/// With `Application.make` and `execute()`, boot waits until the store watches every source, so an edit
/// made once the server answers is seen. The store's events (reloads, failures, pending restarts) and
/// its standing problems at start (an unknown key with a "did you mean") are logged to `logger`.
/// `SIGHUP` is handled as `SettingsStoreService` (StrataServiceLifecycle) handles it, which this type
/// runs: do not also call `store.run(reloadOnHangup: true)` or `SettingsStore.catchHangupSignals()`.
///
/// With `serveControl: true` it also serves the store's control socket, for `config-dump --running
/// APP`: boot waits until the socket accepts connections, and fails with the socket's error when it
/// cannot be made.
public struct SettingsStoreLifecycle: LifecycleHandler {
  /// The store whose sources are watched.
  public let store: SettingsStore
  /// Where the store's diagnostics and events are logged, if anywhere.
  public let logger: Logger?
  /// The level each kind of event is logged at.
  public let eventLevels: StoreEventLogger.Levels
  /// Whether `SIGHUP` reads every source again.
  public let reloadsOnHangup: Bool
  /// Whether systemd is told of readiness and of each reload request, for `Type=notify-reload` units.
  public let notifiesSystemd: Bool
  /// Whether the store's control socket is served.
  public let servesControl: Bool
  /// The control socket's path, when not the default `control.sock` in the runtime directory.
  public let controlSocketPath: String?
  /// The running loop, from boot to shutdown.
  private let running = Running()

  /// The task that runs the store's loop (a `LifecycleHandler` has no scope of its own to run it in).
  private final class Running: Sendable {
    let task = Mutex<Task<Void, Never>?>(nil)
    /// Why the loop ended before it was ready (the control socket could not be made).
    let failure = Mutex<(any Error)?>(nil)
  }

  /// Creates the handler; register it with `app.lifecycle.use(_:)`.
  /// - Parameters:
  ///   - store: the store to run.
  ///   - logger: when given (`app.logger`), the store's diagnostics at start and its events are logged
  ///     there, with readiness and each `SIGHUP` at `info`.
  ///   - eventLevels: the level of each kind of event (default: a reload at `debug`, problems at `info`).
  ///   - reloadOnHangup: read every source again on `SIGHUP` (`systemctl reload`).
  ///   - notifySystemd: under a `Type=notify-reload` unit, `true` (it does nothing outside systemd).
  ///   - serveControl: also serve the store's control socket, for `config-dump --running APP`.
  ///   - controlSocketPath: the socket's path; by default `control.sock` in the service's runtime
  ///     directory (`RuntimeDirectory=` in the unit, else `$XDG_RUNTIME_DIR/APP` or `/run/APP`).
  public init(
    store: SettingsStore, logger: Logger? = nil, eventLevels: StoreEventLogger.Levels = .init(),
    reloadOnHangup: Bool = true, notifySystemd: Bool = false, serveControl: Bool = false,
    controlSocketPath: String? = nil
  ) {
    self.servesControl = serveControl
    self.controlSocketPath = controlSocketPath
    self.store = store
    self.logger = logger
    self.eventLevels = eventLevels
    self.reloadsOnHangup = reloadOnHangup
    self.notifiesSystemd = notifySystemd
  }

  /// Starts the store's run loop and returns once it watches every source (and the control socket,
  /// if served, accepts connections).
  /// - Throws: the control socket's error when it cannot be made.
  public func willBootAsync(_ application: Application) async throws {
    let (ready, readiness) = AsyncStream<Void>.makeStream()
    start { readiness.finish() }
    for await _ in ready {}  // ends at readiness, or when the loop ends before it
    if let failure = running.failure.withLock({ $0 }) { throw failure }
  }

  /// Starts the store's run loop without waiting for it to watch (an application booted without `async`).
  public func willBoot(_ application: Application) throws {
    start {}
  }

  /// Ends the store's run loop and waits until it has ended.
  public func shutdownAsync(_ application: Application) async {
    await stop()?.value
  }

  /// Ends the store's run loop (it ends shortly after; an application shut down without `async`).
  public func shutdown(_ application: Application) {
    _ = stop()
  }

  /// Runs the loop in a task, unless it runs already; `onReady` is called once it watches every source,
  /// or when the loop ends before that.
  private func start(onReady: @escaping @Sendable () -> Void) {
    let service = SettingsStoreService(
      store: store, logger: logger, eventLevels: eventLevels, reloadOnHangup: reloadsOnHangup,
      notifySystemd: notifiesSystemd, serveControl: servesControl, controlSocketPath: controlSocketPath,
      onReady: onReady)
    let running = running
    running.task.withLock { task in
      guard task == nil else { return onReady() }
      task = Task {
        do {
          try await service.run()  // it returns when cancelled, and throws only the control socket's error
        } catch {
          running.failure.withLock { $0 = error }
        }
        onReady()
      }
    }
  }

  /// Cancels the loop's task, if any; the task.
  private func stop() -> Task<Void, Never>? {
    let task = running.task.withLock { task in
      defer { task = nil }
      return task
    }
    task?.cancel()
    return task
  }
}
