public import Logging
public import Strata

/// A log handler whose level follows a setting while the program runs.
///
/// It wraps another handler (the one that writes) and reads its level from a closure at each log call,
/// typically a `Logger.Level` setting, so that editing `level = debug` in a file turns debug logging on
/// without a restart:
///
/// <!-- snippet: Integrations/Tests/StrataIntegrationsTests/DocSnippets/IntegrationSnippets.swift#LiveLevelLogHandler -->
/// ```swift
/// struct LogSettings: SettingsGroup {  // section "log"
///   @Setting var level: Logger.Level = .info  // "debug", "DEBUG", "Debug"…
/// }
/// let log = LogSettings(store: store)
/// LoggingSystem.bootstrap { label in
///   LiveLevelLogHandler(wrapping: StreamLogHandler.standardError(label: label), following: log.$level)
/// }
/// ```
///
/// A setting's read is cached per generation, so following it costs a few nanoseconds per log call.
/// Setting `logLevel` on a logger pins that logger's level; it no longer follows the setting.
public struct LiveLevelLogHandler<Wrapped: LogHandler>: LogHandler {
  /// The handler that writes the records this one lets through.
  public var wrapped: Wrapped
  /// Where the level comes from.
  private let level: @Sendable () -> Logger.Level
  /// A level set on this handler's logger, which wins over the setting.
  private var pinnedLevel: Logger.Level?

  /// Creates a handler whose level is `level()` at each log call.
  /// - Parameters:
  ///   - wrapped: the handler that writes.
  ///   - level: the current level.
  public init(wrapping wrapped: Wrapped, level: @escaping @Sendable () -> Logger.Level) {
    self.wrapped = wrapped
    self.level = level
  }

  /// Creates a handler whose level follows a setting (`group.$level`).
  public init(wrapping wrapped: Wrapped, following setting: SettingRecord<Logger.Level>) {
    self.init(wrapping: wrapped, level: { setting.value })
  }

  /// The setting's current level, or the one set on this handler.
  public var logLevel: Logger.Level {
    get { pinnedLevel ?? level() }
    set { pinnedLevel = newValue }
  }

  /// The wrapped handler's metadata.
  public var metadata: Logger.Metadata {
    get { wrapped.metadata }
    set { wrapped.metadata = newValue }
  }

  /// The wrapped handler's metadata provider.
  public var metadataProvider: Logger.MetadataProvider? {
    get { wrapped.metadataProvider }
    set { wrapped.metadataProvider = newValue }
  }

  /// One item of the wrapped handler's metadata.
  public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
    get { wrapped[metadataKey: key] }
    set { wrapped[metadataKey: key] = newValue }
  }

  /// Passes the record to the wrapped handler (the logger has already checked the level), told the
  /// level in effect: a handler that formats by its level (Vapor's `ConsoleLogger` shows the label at
  /// `trace` and the source location at `debug`) formats as at that level.
  public func log(event: LogEvent) {
    let level = logLevel
    guard wrapped.logLevel != level else { return wrapped.log(event: event) }
    var told = wrapped
    told.logLevel = level
    told.log(event: event)
  }
}

extension LoggingSystem {
  /// Makes every logger write to standard error at the level a setting holds, live.
  ///
  /// The same as `LoggingSystem.bootstrap { LiveLevelLogHandler(wrapping:
  /// StreamLogHandler.standardError(label: $0), following: setting) }`; like any bootstrap, call it
  /// once, before making loggers.
  public static func bootstrap(followingLevel setting: SettingRecord<Logger.Level>) {
    bootstrap { label in
      LiveLevelLogHandler(wrapping: StreamLogHandler.standardError(label: label), following: setting)
    }
  }
}
