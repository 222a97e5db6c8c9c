public import Logging
public import Strata

/// Tells a swift-log `Logger` what happens to a store's configuration.
///
/// Each ``StoreEvent`` becomes one log record with a level that says how much it matters and metadata
/// that a log pipeline can filter on (`strata.event`, and where it applies `strata.generation`,
/// `strata.keys`, `strata.files`, `strata.key`, `strata.file`, `strata.line`, `strata.column`,
/// `strata.code`, `strata.origin`).
///
/// Each kind of event has its level in ``Levels``: by default a reload at `debug` and every problem at
/// `info`, as swift-log asks of libraries; the program raises what it wants to stand out.
///
/// Values of secret settings never appear: the store already redacts them in events and errors, and
/// the logger redacts a pending restart of a secret key again rather than trust that.
///
/// <!-- snippet: Integrations/Tests/StrataIntegrationsTests/DocSnippets/IntegrationSnippets.swift#StoreEventLogger -->
/// ```swift
/// let eventLogger = StoreEventLogger(logger: Logger(label: "config"))
/// group.addTask { await eventLogger.run(store: store) }  // or SettingsStoreService(store:logger:)
/// ```
public struct StoreEventLogger: Sendable {
  /// The logger records go to.
  public let logger: Logger
  /// The level of each kind of event.
  public let levels: Levels

  /// Creates a logger of store events.
  /// - Parameters:
  ///   - logger: where records go; its label and metadata are kept.
  ///   - levels: the level of each kind of event (default: a reload at `debug`, problems at `info`).
  public init(logger: Logger, levels: Levels = Levels()) {
    self.logger = logger
    self.levels = levels
  }

  /// Logs every event until the task is cancelled or the store shuts down, beginning with the problems
  /// standing now (a subscription to the store's events begins with them).
  public func run(store: SettingsStore) async {
    await log(events: store.events, of: store)
  }

  /// Logs each of `events`: a subscription to `store.events` taken earlier, so that nothing between
  /// subscribing and starting is lost; it begins with the problems standing when it was taken.
  public func log(events: AsyncStream<StoreEvent>, of store: SettingsStore) async {
    for await event in events {
      let snapshot = store.snapshot
      log(event, secretKeys: Set(snapshot.entries.lazy.map(\.key).filter(snapshot.isSecret(forKey:))))
    }
  }

  /// Logs one event.
  /// - Parameters:
  ///   - event: the event.
  ///   - secretKeys: keys whose values must not appear (those for which the store's
  ///     `snapshot.isSecret(forKey:)` is true).
  public func log(_ event: StoreEvent, secretKeys: Set<String> = []) {
    switch event {
    case .reloaded(let generation, let keys, let files):
      logger.log(
        level: levels.reloaded, "configuration reloaded: \(keys.joined(separator: ", "))",
        metadata: [
          "strata.event": "reloaded", "strata.generation": "\(generation)",
          "strata.keys": .array(keys.map { .string($0) }), "strata.files": .array(files.map { .string($0) }),
        ])
    case .failed(let error):
      logger.log(
        level: levels.failed, "configuration: \(error)", metadata: Self.metadata(of: error, event: "failed"))
    case .rejected(let error):
      logger.log(
        level: levels.rejected, "configuration: \(error)",
        metadata: Self.metadata(of: error, event: "rejected"))
    case .recovered(let error):
      logger.log(
        level: levels.recovered,
        "configuration recovered: \(error.location ?? "the source") is good again (was: \(error.message))",
        metadata: Self.metadata(of: error, event: "recovered"))
    case .pendingRestart(let pending):
      let isSecret = secretKeys.contains(pending.key)
      let running = isSecret ? Self.redacted : pending.runningValue
      let new = isSecret ? Self.redacted : pending.newValue
      logger.log(
        level: levels.pendingRestart,
        "configuration: \(pending.key) changed to \(new) (\(pending.origin)); running with \(running) until a restart",
        metadata: [
          "strata.event": "pendingRestart", "strata.key": "\(pending.key)",
          "strata.origin": "\(pending.origin)",
        ])
    case .watcherFallback(let path, let message):
      logger.log(
        level: levels.watcherFallback, "configuration: watching \(path) by polling: \(message)",
        metadata: ["strata.event": "watcherFallback", "strata.file": "\(path)"])
    case .diagnosed(let diagnostic): log(diagnostic)
    case .controlRefused(let message):
      logger.log(
        level: levels.rejected, "configuration: control socket: \(message)",
        metadata: ["strata.event": "controlRefused"])
    case .overrideExpired(let key):
      logger.log(
        level: levels.reloaded,
        "configuration: override of \(key) expired; the configured value applies again",
        metadata: ["strata.event": "overrideExpired", "strata.key": "\(key)"])
    }
  }

  /// Logs one diagnostic at the level of its severity in ``levels``.
  public func log(_ diagnostic: Diagnostic) {
    logger.log(
      level: levels.level(of: diagnostic.severity), "configuration: \(diagnostic.error)",
      metadata: Self.metadata(of: diagnostic.error, event: "diagnostic"))
  }

  /// What stands for a secret value.
  static let redacted = "<redacted>"

  /// The metadata of an error: its code and, when it has one, its position.
  static func metadata(of error: StrataError, event: String) -> Logger.Metadata {
    var metadata: Logger.Metadata = ["strata.event": "\(event)", "strata.code": "\(error.code)"]
    if let path = error.path {
      metadata["strata.file"] = "\(path)"
      if error.line > 0 {
        metadata["strata.line"] = "\(error.line)"
        metadata["strata.column"] = "\(error.column)"
      }
    }
    return metadata
  }
}
