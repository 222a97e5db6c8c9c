public import Logging
public import ServiceLifecycle
public import Strata
public import StrataLogging
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
  /// Told of readiness and of each reload request, for `Type=notify-reload` units.
  public let systemd: SystemdNotifier?

  /// Creates the service.
  /// - Parameters:
  ///   - store: the store to run.
  ///   - logger: when given, the store's diagnostics at start and every event while the service runs
  ///     are logged there (see `StoreEventLogger`), with readiness and each `SIGHUP` at `info`.
  ///   - eventLevels: the level of each kind of event (default: a reload at `debug`, problems at `info`).
  ///   - reloadOnHangup: read every source again on `SIGHUP` (`systemctl reload`).
  ///   - systemd: under a `Type=notify-reload` unit, `SystemdNotifier()`: `READY=1` once every source
  ///     is watched, `RELOADING=1` … `READY=1` around each `SIGHUP`'s reload (it does nothing outside
  ///     systemd).
  ///   - onReady: called once the store watches every source.
  public init(
    store: SettingsStore, logger: Logger? = nil, eventLevels: StoreEventLogger.Levels = .init(),
    reloadOnHangup: Bool = true, systemd: SystemdNotifier? = nil, onReady: @escaping @Sendable () -> Void = {}
  ) {
    self.init(
      store: store, logger: logger, eventLevels: eventLevels,
      reloadRequests: reloadOnHangup ? Self.hangups : nil, systemd: systemd, onReady: onReady)
  }

  /// Creates the service with its own source of reload requests (tests).
  init(
    store: SettingsStore, logger: Logger?, eventLevels: StoreEventLogger.Levels = .init(),
    reloadRequests: (@Sendable (Logger?) async -> any AsyncSequence<Void, Never> & Sendable)?,
    systemd: SystemdNotifier? = nil, onReady: @escaping @Sendable () -> Void
  ) {
    self.store = store
    self.logger = logger
    self.eventLevels = eventLevels
    self.reloadRequests = reloadRequests
    self.systemd = systemd
    self.onReady = onReady
  }

  /// Runs until the group shuts down gracefully or the task is cancelled.
  public func run() async throws {
    // Subscribe and trap before the loop starts, so that nothing between here and readiness is lost.
    let (store, logger, onReady, systemd) = (self.store, self.logger, self.onReady, self.systemd)
    let levels = eventLevels
    let events = logger.map { _ in store.events }
    let requests = await reloadRequests?(logger)
    await cancelWhenGracefulShutdown {
      await withDiscardingTaskGroup { group in
        if let logger, let events {
          group.addTask {
            await StoreEventLogger(logger: logger, levels: levels).log(events: events, of: store)
          }
        }
        let ready: @Sendable () -> Void = {
          logger?.info(
            "configuration: watching for changes from generation \(store.generation)",
            metadata: ["strata.event": "ready", "strata.reloadOnHangup": "\(requests != nil)"])
          onReady()
        }
        if let requests {
          await store.run(reloadRequests: requests, notifying: systemd, onReady: ready)
        } else {
          await store.run(notifying: systemd, onReady: ready)
        }
        group.cancelAll()
      }
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
