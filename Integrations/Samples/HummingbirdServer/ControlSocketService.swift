import Logging
import ServiceLifecycle
import Strata

/// The store's control socket as a service of the group: `config-dump --running hbserver` asks this
/// process what it uses now, plans an edit and sets a time-limited override (the socket is in
/// `$RUNTIME_DIRECTORY`, else `$XDG_RUNTIME_DIR/hbserver` or `/run/hbserver`; only this process's user
/// and root may open it).
struct ControlSocketService: Service {
  let store: SettingsStore
  let logger: Logger

  func run() async throws {
    do {
      try await cancelWhenGracefulShutdown { try await store.serveControl() }
    } catch {
      // Without its socket the server still serves: say why, and run until the group ends (a service
      // that returns would end the group).
      logger.warning("no control socket: \(error)", metadata: ["strata.event": "controlSocket"])
      try? await gracefulShutdown()
    }
  }
}
