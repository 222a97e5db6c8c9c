import Configuration
import Hummingbird
import Logging
import ServiceLifecycle
import Strata
import StrataConfiguration
import StrataLogging
import StrataServiceLifecycle
import UnixSignals

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

// A Hummingbird 2 server configured by Strata: typed groups over layered files and the environment,
// live reload, its own host and port through swift-configuration, logging through swift-log. See
// README.md.

let arguments = Array(CommandLine.arguments.dropFirst())
func option(_ name: String) -> String? {
  arguments.firstIndex(of: name).flatMap { arguments.indices.contains($0 + 1) ? arguments[$0 + 1] : nil }
}

let store = makeStore(
  root: option("--root"), etcd: option("--etcd"), environment: ProcessInfo.processInfo.environment)
let http = HTTPSettings(store: store)
let greeting = GreetingSettings(store: store)
let rateLimit = RateLimitSettings(store: store)
let log = LogSettings(store: store)
let admin = AdminSettings(store: store)

LoggingSystem.bootstrap(followingLevel: log.$level)
let logger = Logger(label: "hbserver")
let limiter = RateLimiter()

let router = Router()
router.get("/") { _, context -> String in
  guard limiter.allow(perSecond: rateLimit.requestsPerSecond) else { throw HTTPError(.tooManyRequests) }
  context.logger.debug("greeting answered for \(greeting.name)")  // written when log.level is debug
  // Both read from one generation: an edit that changes both never shows half of itself.
  return greeting.withConsistentSnapshot { "\($0.message), \($0.name)!\n" }
}
router.get("/config") { _, _ in
  Response(
    status: .ok, headers: [.contentType: "application/json"],
    body: .init(
      byteBuffer: ByteBuffer(
        string: configJSON(store: store, groups: [http, greeting, rateLimit, log, admin]))))
}
router.get("/admin") { request, _ -> String in
  guard request.headers[.authorization] == "Bearer \(admin.token)" else { throw HTTPError(.unauthorized) }
  return "generation \(store.snapshot.generation)\n"
}

let app = Application(
  router: router,
  configuration: ApplicationConfiguration(
    reader: ConfigReader(provider: StrataConfigProvider(store: store)).scoped(to: "http")),
  logger: logger)
// A program chooses how loud configuration events are: here reloads show at the default level and
// failures stand out (the library's defaults are a reload at debug and problems at info).
let eventLevels = StoreEventLogger.Levels(
  reloaded: .info, failed: .error, rejected: .warning, pendingRestart: .warning)
// The store's service also serves its control socket, for `config-dump --running hbserver` (in
// $RUNTIME_DIRECTORY, else $XDG_RUNTIME_DIR/hbserver or /run/hbserver; only this process's user and root
// may open it): a socket that cannot be made ends the group with the reason.
let services = ServiceGroup(
  services: [
    SettingsStoreService(
      store: store, logger: logger, eventLevels: eventLevels, notifySystemd: true, serveControl: true),
    app,
  ],
  gracefulShutdownSignals: [.sigterm, .sigint],
  logger: logger)
try await services.run()
