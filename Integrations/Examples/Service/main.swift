import Logging
import ServiceLifecycle
import Strata
import StrataLogging
import StrataServiceLifecycle

// A service in a ServiceGroup beside the store's run loop, which watches /etc/greeter/greeter.ini (and
// the other files of the layout, GREETER_* variables and --greeting.name options), logs what it
// reloads, reloads on SIGHUP and serves the control socket for `config-dump --running greeter`.

/// The settings of the section "greeting".
struct GreetingSettings: SettingsGroup {
  @Setting(help: "Who to greet") var name = "world"
}

/// The program's own service: greets again each time the name changes, until the group shuts down.
struct Greeter: Service {
  let greeting: GreetingSettings
  let logger: Logger

  func run() async throws {
    logger.info("hello, \(greeting.name)")
    for await name in greeting.$name.changes.cancelOnGracefulShutdown() {
      logger.info("hello, \(name)")
    }
  }
}

let logger = Logger(label: "greeter")
let store = SettingsStore(app: "greeter")
let greeting = GreetingSettings(store: store)
try store.requireAll()
// Reloads at the logger's default level, failures standing out (StrataLogging's levels).
let levels = StoreEventLogger.Levels(reloaded: .info, failed: .error, pendingRestart: .warning)
let group = ServiceGroup(
  services: [
    SettingsStoreService(
      store: store, logger: logger, eventLevels: levels, notifySystemd: true, serveControl: true),
    Greeter(greeting: greeting, logger: logger),
  ],
  gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
try await group.run()
