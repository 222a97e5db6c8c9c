public import Logging
public import ServiceLifecycle
public import Strata
public import StrataLogging
import Synchronization
import UnixSignals

/// A store's run loop as a swift-service-lifecycle `Service`: it watches the store's sources while the
/// `ServiceGroup` runs, reloads on `SIGHUP`, and ends on graceful shutdown or cancellation.
///
/// <!-- snippet: Integrations/Tests/StrataIntegrationsTests/DocSnippets/IntegrationSnippets.swift#SettingsStoreService -->
/// ```swift
/// let store = SettingsStore(app: "myserver")
/// let group = ServiceGroup(
///   services: [SettingsStoreService(store: store, logger: logger), app],
///   gracefulShutdownSignals: [.sigterm], logger: logger)
/// try await group.run()
/// ```
///
/// With `serveControl: true` it also serves the store's control socket (see
/// `SettingsStore.serveControl(at:)`), so that `config-dump --running APP` can ask the service what it
/// uses now, plan an edit and set an override; the service is ready once the socket accepts
/// connections too, and a socket that cannot be made (no runtime directory, one that others may write)
/// ends the service with that error, as a port already in use would.
///
/// `SIGHUP` is heard through ServiceLifecycle's `UnixSignalsSequence`, the machinery the group uses
/// for `SIGTERM`, so each signal has one handler in the process: do not also call
/// `store.run(reloadOnHangup: true)` or `SettingsStore.catchHangupSignals()`, whose raw handler and
/// ServiceLifecycle's do not share a signal. The signal is trapped once the service runs; a `SIGHUP`
/// before that ends the process, as it does any program that has not set up a handler yet.
public struct SettingsStoreService: Service {
  /// The store whose sources are watched.
  public let store: SettingsStore
  /// Where the store's diagnostics and events are logged, if anywhere.
  public let logger: Logger?
  /// The level each kind of event is logged at.
  public let eventLevels: StoreEventLogger.Levels
  /// Whether `SIGHUP` reads every source again.
  public var reloadsOnHangup: Bool { reloadRequests != nil }
  /// What asks for every source to be read again (`SIGHUP`, or a test's stream).
  private let reloadRequests: (@Sendable (Logger?) async -> any AsyncSequence<Void, Never> & Sendable)?
  /// Called once the store watches every source: changes from then on are seen.
  private let onReady: @Sendable () -> Void
  /// Whether systemd is told of readiness and of each reload request, for `Type=notify-reload` units.
  public let notifiesSystemd: Bool
  /// Whether the service serves the store's control socket.
  public let servesControl: Bool
  /// The control socket's path, when not the default `control.sock` in the runtime directory.
  public let controlSocketPath: String?
  /// The program's health, for rollback (see `SettingsStore.run(reloadOnHangup:notifySystemd:onReady:healthCheck:rollbackWindow:)`).
  private let healthCheck: (@Sendable () async -> Bool)?
  /// How long after a generation a failing health check rolls it back.
  public let rollbackWindow: Duration

  /// Creates the service.
  /// - Parameters:
  ///   - store: the store to run.
  ///   - logger: when given, the store's diagnostics at start and every event while the service runs
  ///     are logged there (see `StoreEventLogger`), with readiness and each `SIGHUP` at `info`.
  ///   - eventLevels: the level of each kind of event (default: a reload at `debug`, problems at `info`).
  ///   - reloadOnHangup: read every source again on `SIGHUP` (`systemctl reload`).
  ///   - notifySystemd: under a `Type=notify-reload` unit, `true`: `READY=1` once every source is
  ///     watched, `RELOADING=1` … `READY=1` around each `SIGHUP`'s reload (it does nothing outside
  ///     systemd).
  ///   - serveControl: also serve the store's control socket, for `config-dump --running APP`.
  ///   - controlSocketPath: the socket's path; by default `control.sock` in the service's runtime
  ///     directory (`RuntimeDirectory=` in the unit, else `$XDG_RUNTIME_DIR/APP` or `/run/APP`).
  ///   - onReady: called once the store watches every source (and the control socket, if served,
  ///     accepts connections).
  ///   - healthCheck: the program's health: a generation after which it turns `false` within
  ///     `rollbackWindow` is rolled back to the last healthy generation's values.
  ///   - rollbackWindow: how long after a generation a failing health check rolls it back.
  public init(
    store: SettingsStore, logger: Logger? = nil, eventLevels: StoreEventLogger.Levels = .init(),
    reloadOnHangup: Bool = true, notifySystemd: Bool = false, serveControl: Bool = false,
    controlSocketPath: String? = nil, onReady: @escaping @Sendable () -> Void = {},
    healthCheck: (@Sendable () async -> Bool)? = nil, rollbackWindow: Duration = .seconds(30)
  ) {
    self.init(
      store: store, logger: logger, eventLevels: eventLevels,
      reloadRequests: reloadOnHangup ? Self.hangups : nil, notifySystemd: notifySystemd,
      serveControl: serveControl,
      controlSocketPath: controlSocketPath, onReady: onReady, healthCheck: healthCheck,
      rollbackWindow: rollbackWindow)
  }

  /// Creates the service with its own source of reload requests (tests).
  init(
    store: SettingsStore, logger: Logger?, eventLevels: StoreEventLogger.Levels = .init(),
    reloadRequests: (@Sendable (Logger?) async -> any AsyncSequence<Void, Never> & Sendable)?,
    notifySystemd: Bool = false, serveControl: Bool = false, controlSocketPath: String? = nil,
    onReady: @escaping @Sendable () -> Void, healthCheck: (@Sendable () async -> Bool)? = nil,
    rollbackWindow: Duration = .seconds(30)
  ) {
    self.healthCheck = healthCheck
    self.rollbackWindow = rollbackWindow
    self.store = store
    self.logger = logger
    self.eventLevels = eventLevels
    self.reloadRequests = reloadRequests
    self.notifiesSystemd = notifySystemd
    self.servesControl = serveControl
    self.controlSocketPath = controlSocketPath
    self.onReady = onReady
  }

  /// Runs until the group shuts down gracefully or the task is cancelled.
  /// - Throws: the control socket's `StrataError` when it was asked for and cannot be made.
  public func run() async throws {
    // Subscribe and trap before the loop starts, so that nothing between here and readiness is lost.
    let (store, logger, onReady, notifySystemd) = (self.store, self.logger, self.onReady, notifiesSystemd)
    let (levels, servesControl, controlSocketPath) = (eventLevels, self.servesControl, self.controlSocketPath)
    let (healthCheck, rollbackWindow) = (self.healthCheck, self.rollbackWindow)
    let events = logger.map { _ in store.events }
    let requests = await reloadRequests?(logger)
    // Ready once the store watches every source and the control socket, if any, accepts connections.
    let readiness = Readiness(parts: servesControl ? 2 : 1) {
      logger?.info(
        "configuration: watching for changes from generation \(store.snapshot.generation)",
        metadata: ["strata.event": "ready", "strata.reloadOnHangup": "\(requests != nil)"])
      onReady()
    }
    do {
      try await cancelWhenGracefulShutdown {
        try await withThrowingDiscardingTaskGroup { group in
          if let logger, let events {
            group.addTask {
              await StoreEventLogger(logger: logger, levels: levels).log(events: events, of: store)
            }
          }
          if servesControl {
            group.addTask {
              do {
                try await store.serveControl(at: controlSocketPath) { path in
                  logger?.info(
                    "configuration: control socket at \(path)",
                    metadata: ["strata.event": "controlListening", "strata.path": "\(path)"])
                  readiness.arrive()
                }
              } catch {
                logger?.error(
                  "configuration: cannot serve the control socket: \(error)",
                  metadata: ["strata.event": "controlFailed"])
                throw error
              }
            }
          }
          group.addTask {
            if let requests {
              await store.run(
                reloadRequests: requests, notifySystemd: notifySystemd, onReady: readiness.arrive,
                healthCheck: healthCheck,
                rollbackWindow: rollbackWindow)
            } else {
              await store.run(
                notifySystemd: notifySystemd, onReady: readiness.arrive, healthCheck: healthCheck,
                rollbackWindow: rollbackWindow)
            }
            throw RunEnded()  // ends the other parts
          }
        }
      }
    } catch is RunEnded {}
  }

  /// Thrown by the run loop's part when it returns, so that the group ends the other parts.
  private struct RunEnded: Error {}

  /// Calls `body` once every one of `parts` has arrived.
  private final class Readiness: Sendable {
    private let remaining: Mutex<Int>
    private let body: @Sendable () -> Void

    init(parts: Int, _ body: @escaping @Sendable () -> Void) {
      remaining = Mutex(parts)
      self.body = body
    }

    @Sendable func arrive() {
      let now = remaining.withLock { remaining in
        remaining -= 1
        return remaining
      }
      if now == 0 { body() }
    }
  }

  /// `SIGHUP`s, through ServiceLifecycle's signal handling, each logged.
  @Sendable private static func hangups(_ logger: Logger?) async -> any AsyncSequence<Void, Never> & Sendable
  {
    await UnixSignalsSequence(trapping: .sighup).map { _ in
      logger?.info("configuration: reloading on SIGHUP", metadata: ["strata.event": "reloadRequested"])
    }
  }
}
