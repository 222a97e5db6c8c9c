import Strata

/// OperatingAService.md.
enum Operating {
  final class LogSettings: SettingsGroup, @unchecked Sendable {
    @Setting var level = "info"
  }

  static func main() throws {
    // snippet: serve
    let store = SettingsStore(app: "demo")
    let log = LogSettings(store: store)  // every group first,
    try store.requireAll()  // then the required settings
    Task.detached { await store.run(reloadOnHangup: true) }
    Task.detached {
      do {
        try await store.serveControl()  // $RUNTIME_DIRECTORY/control.sock until cancelled
      } catch {
        print("no control socket: \(error)")  // no runtime directory, another instance serves, …
      }
    }
    // snippet: end
    print(log.level)
  }
}
