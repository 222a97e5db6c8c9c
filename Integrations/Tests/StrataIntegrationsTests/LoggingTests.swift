import Logging
import Strata
import StrataLogging
import Testing

/// The settings the logging tests edit.
struct LoggingServerSettings: SettingsGroup {
  static var section: String { "server" }
  @Setting(validation: .range(1...65535)) var port = 8080
  @Setting(traits: [.secret, .restartRequired]) var token = "first-secret-value"
}

/// A log level setting.
struct LoggingLevelSettings: SettingsGroup {
  static var section: String { "log" }
  @Setting var level: Logger.Level = .info
}

@Suite struct LoggingTests {
  @Test func eachEventKindHasItsLevelAndMetadata() throws {
    let (logger, records) = LoggingRecorder.logger()
    let eventLogger = StoreEventLogger(logger: logger)
    let error = StrataError(
      .typeMismatch, "expected Int for server.port, found \"80a\"", path: "/etc/a.ini", line: 6, column: 8)
    eventLogger.log(
      .reloaded(generation: 7, changedKeys: ["server.port", "server.host"], files: ["/etc/a.ini"]))
    eventLogger.log(.failed(error))
    eventLogger.log(.rejected(error))
    eventLogger.log(.recovered(error))
    eventLogger.log(.watcherFallback(path: "/etc/a", message: "inotify limit reached"))
    eventLogger.log(
      Diagnostic(
        .warning,
        StrataError(.unknownKey, "unknown key 'server.prot'", path: "/etc/a.ini", line: 3, column: 1)))
    let all = records.all
    try #require(all.count == 6)
    // The defaults swift-log asks of a library: a routine reload at debug, every problem at info.
    #expect(all.map(\.level) == [.debug, .info, .info, .info, .info, .info])
    #expect(
      all.map { $0.metadata["strata.event"]?.description } == [
        "reloaded", "failed", "rejected", "recovered", "watcherFallback", "diagnostic",
      ])
    #expect(all[0].metadata["strata.generation"] == "7")
    #expect(all[0].metadata["strata.keys"] == .array(["server.port", "server.host"]))
    #expect(all[0].message.contains("server.port, server.host"))
    #expect(all[1].message.contains("/etc/a.ini:6:8") && all[1].message.contains("server.port"))
    #expect(all[1].metadata["strata.file"] == "/etc/a.ini")
    #expect(all[1].metadata["strata.line"] == "6" && all[1].metadata["strata.column"] == "8")
    #expect(all[1].metadata["strata.code"] == "typeMismatch")
    #expect(all[2].metadata["strata.line"] == "6" && all[2].metadata["strata.code"] == "typeMismatch")
    #expect(all[5].metadata["strata.line"] == "3" && all[5].metadata["strata.code"] == "unknownKey")
  }

  @Test func eachEventKindIsLoggedAtTheLevelTheProgramChose() throws {
    let (logger, records) = LoggingRecorder.logger()
    let levels = StoreEventLogger.Levels(
      reloaded: .trace, failed: .critical, rejected: .warning, recovered: .notice, pendingRestart: .warning,
      watcherFallback: .error,
      errorDiagnostic: .critical, warningDiagnostic: .notice, noteDiagnostic: .info)
    let eventLogger = StoreEventLogger(logger: logger, levels: levels)
    let error = StrataError(.syntax, "expected '=' after key", path: "/etc/a.ini", line: 2, column: 4)
    eventLogger.log(.reloaded(generation: 3, changedKeys: ["server.port"], files: ["/etc/a.ini"]))
    eventLogger.log(.failed(error))
    eventLogger.log(.rejected(error))
    eventLogger.log(.recovered(error))
    eventLogger.log(.watcherFallback(path: "/etc/a", message: "inotify watch limit reached"))
    eventLogger.log(.diagnosed(Diagnostic(.error, error)))
    eventLogger.log(.diagnosed(Diagnostic(.warning, StrataError(.unknownKey, "unknown key 'server.prot'"))))
    eventLogger.log(.diagnosed(Diagnostic(.note, StrataError(.skipped, "skipped README"))))
    #expect(
      records.all.map(\.level) == [.trace, .critical, .warning, .notice, .error, .critical, .notice, .info])
    #expect(
      records.all.map { $0.metadata["strata.event"]?.description } == [
        "reloaded", "failed", "rejected", "recovered", "watcherFallback", "diagnostic", "diagnostic",
        "diagnostic",
      ])
    // Only what a level lets through reaches the handler: a logger at info drops a reload at trace.
    var quiet = logger
    quiet.logLevel = .info
    StoreEventLogger(logger: quiet, levels: levels).log(
      .reloaded(generation: 4, changedKeys: ["a"], files: []))
    #expect(records.all.count == 8)
    #expect(StoreEventLogger.Levels() != levels)
  }

  @Test func aStoreLogsBadValuesRecoveryUnknownKeysAndPendingRestartsWithoutSecrets() async throws {
    try await SvcFixtures.withTemporaryDirectory { dir in
      let file = dir + "/a.ini"
      try SvcFixtures.write("[server]\nport = 8080\ntoken = first-secret-value\n", to: file)
      let store = SettingsStore(layers: [FileLayer(scope: .system, files: [file])])
      let server = LoggingServerSettings(store: store)
      let (logger, records) = LoggingRecorder.logger()
      let ready = SvcFixtures.Flag()
      // Levels as a program that wants problems to stand out chooses them (a pending restart's is
      // checked here: a real one comes only from a store).
      let levels = StoreEventLogger.Levels(
        failed: .error, rejected: .error, recovered: .notice, pendingRestart: .warning,
        warningDiagnostic: .warning)
      let logging = Task { await StoreEventLogger(logger: logger, levels: levels).run(store: store) }
      let running = Task { await store.run(onReady: { ready.set() }) }
      defer {
        running.cancel()
        logging.cancel()
      }
      #expect(await SvcFixtures.waitUntil { ready.isSet })

      try SvcFixtures.write("[server]\nport = 80a\ntoken = first-secret-value\n", to: file)
      #expect(
        await SvcFixtures.waitUntil {
          records.all.contains {
            $0.level == .error && $0.message.contains("a.ini:2:8") && $0.message.contains("server.port")
              && $0.metadata["strata.event"] == "rejected"
          }
        }, "\(records.all.map(\.message))")
      #expect(server.port == 8080)

      try SvcFixtures.write("[server]\nport = 9090\nprot = 1\ntoken = first-secret-value\n", to: file)
      #expect(
        await SvcFixtures.waitUntil {
          records.all.contains { $0.level == .notice && $0.metadata["strata.event"] == "recovered" }
        })
      #expect(
        await SvcFixtures.waitUntil {
          records.all.contains {
            $0.level == .warning && $0.message.contains("server.prot") && $0.metadata["strata.line"] == "3"
          }
        }, "\(records.all.map(\.message))")
      #expect(server.port == 9090)
      // Logged once while it lasts.
      #expect(records.matching("server.prot").filter { $0.level == .warning }.count == 1)

      try SvcFixtures.write("[server]\nport = 9090\ntoken = second-secret-value\n", to: file)
      #expect(
        await SvcFixtures.waitUntil {
          records.all.contains {
            $0.level == .warning && $0.metadata["strata.event"] == "pendingRestart"
              && $0.metadata["strata.key"] == "server.token"
          }
        }, "\(records.all.map(\.message))")
      let text = records.all.map { "\($0.message) \($0.metadata)" }.joined(separator: "\n")
      #expect(!text.contains("first-secret-value") && !text.contains("second-secret-value"), "\(text)")
    }
  }

  @Test func theLiveLevelHandlerFollowsTheSettingAsTheFileChanges() async throws {
    try await SvcFixtures.withTemporaryDirectory { dir in
      let file = dir + "/a.ini"
      try SvcFixtures.write("[log]\nlevel = info\n", to: file)
      let store = SettingsStore(layers: [FileLayer(scope: .system, files: [file])])
      let settings = LoggingLevelSettings(store: store)
      let storage = LoggingRecorder.Storage()
      let logger = Logger(label: "live") { _ in
        LiveLevelLogHandler(wrapping: LoggingRecorder(storage: storage), following: settings.$level)
      }
      let ready = SvcFixtures.Flag()
      let running = Task { await store.run(onReady: { ready.set() }) }
      defer { running.cancel() }
      #expect(await SvcFixtures.waitUntil { ready.isSet })
      logger.debug("hidden")
      #expect(storage.all.isEmpty)

      try SvcFixtures.write("[log]\nlevel = DEBUG\n", to: file)  // names read in any case
      #expect(await SvcFixtures.waitUntil { logger.logLevel == .debug })
      logger.debug("shown")
      #expect(storage.all.map(\.message) == ["shown"])

      try SvcFixtures.write("[log]\nlevel = error\n", to: file)
      #expect(await SvcFixtures.waitUntil { logger.logLevel == .error })
      logger.warning("hidden again")
      #expect(storage.all.count == 1)

      var pinned = logger
      pinned.logLevel = .trace  // a level set on a logger wins over the setting
      pinned.trace("pinned")
      #expect(storage.all.map(\.message) == ["shown", "pinned"])
      // The wrapped handler is told the level in effect (Vapor's console logger formats by it).
      #expect(storage.all.map(\.handlerLevel) == [.debug, .trace])
    }
  }
}
