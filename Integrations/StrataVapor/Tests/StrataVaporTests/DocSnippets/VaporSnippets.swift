import Logging
import Strata
import StrataVapor
import Vapor

/// The samples of StrataVapor's doc comments, compiled here and checked against the documents by
/// `Scripts/check-doc-snippets.py`. Nothing here runs.
enum VaporSnippets {
  static func lifecycle(store: SettingsStore, environment: Environment) async throws {
    // snippet: SettingsStoreLifecycle
    let app = try await Application.make(environment)
    app.lifecycle.use(SettingsStoreLifecycle(store: store, logger: app.logger))
    try await app.execute()  // serves until SIGTERM or SIGINT
    try await app.asyncShutdown()  // the store's run loop ends here
    // snippet: end
  }

  static func arguments() throws -> (Environment, SettingsStore) {
    // snippet: SettingsArguments
    // myserver serve --port 9000 --env production --greeting.name=Vapor
    let arguments = SettingsArguments(splitting: CommandLine.arguments)
    var environment = try Environment.detect(arguments: arguments.vapor)
    let store = SettingsStore(app: "myserver", profile: environment.name, arguments: arguments.settings)
    // snippet: end
    environment.arguments = arguments.vapor
    return (environment, store)
  }

  static func bootstrap(store: SettingsStore, environment: inout Environment) throws {
    // snippet: bootstrap
    struct LogSettings: SettingsGroup {  // section "log"
      @Setting var level: Logger.Level = .info
    }
    let log = LogSettings(store: store)
    try LoggingSystem.bootstrap(from: &environment, followingLevel: log.$level)
    // snippet: end
  }
}
