public import Logging
import Strata

extension StoreEventLogger {
  /// The level each kind of store event is logged at.
  ///
  /// The defaults follow swift-log's guidance for libraries: nothing above `info`, since the program
  /// decides what is loud. A routine reload is `debug`; every problem (a failed source, a rejected
  /// edit, a pending restart, a watcher fallback, a diagnostic) is `info`, which a logger at its
  /// default level shows, and which `StoreMetrics` of StrataMetrics also counts. A program that wants
  /// failures to stand out says so:
  ///
  /// <!-- snippet: Integrations/Tests/StrataIntegrationsTests/DocSnippets/IntegrationSnippets.swift#Levels -->
  /// ```swift
  /// let levels = StoreEventLogger.Levels(reloaded: .info, failed: .error, pendingRestart: .warning)
  /// let eventLogger = StoreEventLogger(logger: Logger(label: "config"), levels: levels)
  /// ```
  public struct Levels: Sendable, Equatable {
    /// A new generation changed running values.
    public var reloaded: Logger.Level
    /// A source failed to load.
    public var failed: Logger.Level
    /// A setting refused a live edit (the value does not convert or validate).
    public var rejected: Logger.Level
    /// A failure reported before is gone.
    public var recovered: Logger.Level
    /// A restart-required setting changed.
    public var pendingRestart: Logger.Level
    /// A path is watched by polling instead of inotify.
    public var watcherFallback: Logger.Level
    /// A diagnostic of severity `error` (a value that falls back at start-up, a refused file, …).
    public var errorDiagnostic: Logger.Level
    /// A diagnostic of severity `warning` (an unknown key, a deprecated one, …).
    public var warningDiagnostic: Logger.Level
    /// A diagnostic of severity `note` (a file skipped for its name).
    public var noteDiagnostic: Logger.Level

    /// Creates levels; each one not given takes its default.
    public init(
      reloaded: Logger.Level = .debug, failed: Logger.Level = .info, rejected: Logger.Level = .info,
      recovered: Logger.Level = .info,
      pendingRestart: Logger.Level = .info, watcherFallback: Logger.Level = .info,
      errorDiagnostic: Logger.Level = .info, warningDiagnostic: Logger.Level = .info,
      noteDiagnostic: Logger.Level = .debug
    ) {
      self.reloaded = reloaded
      self.failed = failed
      self.rejected = rejected
      self.recovered = recovered
      self.pendingRestart = pendingRestart
      self.watcherFallback = watcherFallback
      self.errorDiagnostic = errorDiagnostic
      self.warningDiagnostic = warningDiagnostic
      self.noteDiagnostic = noteDiagnostic
    }

    /// The level of a diagnostic of `severity`.
    func level(of severity: Diagnostic.Severity) -> Logger.Level {
      switch severity {
      case .error: errorDiagnostic
      case .warning: warningDiagnostic
      case .note: noteDiagnostic
      }
    }
  }
}
