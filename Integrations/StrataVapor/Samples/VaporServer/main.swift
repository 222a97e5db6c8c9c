import Logging
import Strata
import StrataLogging
import StrataVapor
import Vapor

// A Vapor 4 server configured by Strata: typed groups over layered files, the environment and the
// command line, live reload run by Vapor's lifecycle, one logging bootstrap. See README.md.

// snippet: main
// Strata's `--section.key` options go to the store, the rest to Vapor (ConsoleKit refuses options it
// does not know).
let arguments = SettingsArguments(splitting: CommandLine.arguments)
var environment = try Environment.detect(arguments: arguments.vapor)
// Vapor's environment (`--env production`, else `VAPOR_ENV`, else `development`) is the store's
// profile: vaporserver.production.ini above vaporserver.ini in each directory.
let store = SettingsStore(
  app: "vaporserver", root: Environment.get("VAPOR_SERVER_ROOT"), profile: environment.name,
  arguments: arguments.settings)
let http = HTTPSettings(store: store)
let greeting = GreetingSettings(store: store)
let log = LogSettings(store: store)
try LoggingSystem.bootstrap(from: &environment, followingLevel: log.$level)

let app = try await Application.make(environment)
// Reloads at the default level, failures standing out.
let eventLevels = StoreEventLogger.Levels(
  reloaded: .info, failed: .error, rejected: .warning, pendingRestart: .warning)
// The store's control socket too, for `config-dump --running vaporserver` (see README.md).
app.lifecycle.use(
  SettingsStoreLifecycle(store: store, logger: app.logger, eventLevels: eventLevels, serveControl: true))
app.http.server.configuration.hostname = http.hostname  // `serve --hostname`/`--port` win over these
app.http.server.configuration.port = http.port
// snippet: end

app.get { request in
  request.logger.debug("greeting answered for \(greeting.name)")  // written when log.level is debug
  return "\(greeting.message), \(greeting.name)!\n"
}
app.get("status") { _ in
  var lines = [
    "environment: \(app.environment.name)", "generation: \(store.snapshot.generation)",
    "greeting.name: \(greeting.name) from \(greeting.$name.origin)",
  ]
  lines += store.pendingRestarts.map { "pending: \($0)" }
  return lines.joined(separator: "\n") + "\n"
}

// The application; the lifecycle handler serves the control socket from boot to shutdown (in
// $RUNTIME_DIRECTORY, else $XDG_RUNTIME_DIR/vaporserver or /run/vaporserver; only this process's user
// and root may open it), and a socket that cannot be made fails the boot with the reason.
let executed: Bool
do {
  try await app.execute()
  executed = true
} catch {
  // `execute` has logged it: ConsoleKit's `unknownInput("--prot 9000")` for an option no command has.
  executed = false
}
guard executed else {
  try? await app.asyncShutdown()
  exit(1)
}
try await app.asyncShutdown()
