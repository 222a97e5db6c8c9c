public import Logging
public import Strata
import StrataLogging
public import Vapor

extension LoggingSystem {
  /// One logging bootstrap for Vapor and Strata: Vapor's console logger, at the level `setting` holds,
  /// followed while the program runs, unless `--log LEVEL` or `LOG_LEVEL` pins one.
  ///
  /// It takes the place of Vapor's `LoggingSystem.bootstrap(from:)` (swift-log allows one bootstrap a
  /// process): like it, it reads and removes `--log` from the environment's arguments and reads
  /// `LOG_LEVEL`, and writes through ConsoleKit's `ConsoleLogger` in Vapor's format. Where neither is
  /// given, the level is the setting's (`level = debug` in a file turns debug logging on without a
  /// restart), and the setting's default takes the place of Vapor's (`notice` in production, else
  /// `info`).
  ///
  /// <!-- snippet: Integrations/StrataVapor/Tests/StrataVaporTests/DocSnippets/VaporSnippets.swift#bootstrap -->
  /// ```swift
  /// struct LogSettings: SettingsGroup {  // section "log"
  ///   @Setting var level: Logger.Level = .info
  /// }
  /// let log = LogSettings(store: store)
  /// try LoggingSystem.bootstrap(from: &environment, followingLevel: log.$level)
  /// ```
  /// - Parameters:
  ///   - environment: Vapor's environment; its `--log` option is removed.
  ///   - setting: the level to follow (`group.$level`).
  /// - Throws: ConsoleKit's error when `--log` has no valid level.
  public static func bootstrap(
    from environment: inout Environment, followingLevel setting: SettingRecord<Logger.Level>
  ) throws {
    let pinned = try LogOption(from: &environment.commandInput).level ?? Environment.process.LOG_LEVEL
    let console = Terminal()
    bootstrap { label in
      LiveLevelLogHandler(
        wrapping: ConsoleLogger(label: label, console: console), level: { pinned ?? setting.value })
    }
  }
}

/// Vapor's `--log` option.
private struct LogOption: CommandSignature {
  @Option(name: "log", help: "Change log level")
  var level: Logger.Level?

  init() {}
}
