import Strata

/// OperatingAService.md.
enum Operating {
  struct LogSettings: SettingsGroup {
    @Setting var level = "info"
  }

  /// The program's own work.
  static func serve(_ log: LogSettings) async {
    print(log.level)
  }

  /// An upstream the program depends on.
  struct Upstream {
    func isReachable() async -> Bool { true }
  }

  static func rollback(_ store: SettingsStore, _ upstream: Upstream) async {
    // snippet: rollback
    await store.run(
      reloadOnHangup: true,
      healthCheck: { await upstream.isReachable() },  // asked every tenth of the window (50 ms to 5 s)
      rollbackWindow: .seconds(60))
    // snippet: end
  }

  static func main() async throws {
    // snippet: serve
    let store = SettingsStore(app: "demo")
    let log = LogSettings(store: store)  // every group first,
    try store.requireAll()  // then the required settings
    await withDiscardingTaskGroup { group in
      group.addTask { await store.run(reloadOnHangup: true) }
      group.addTask {
        do {
          try await store.serveControl()  // $RUNTIME_DIRECTORY/control.sock until cancelled
        } catch {
          print("no control socket: \(error)")  // no runtime directory, another instance serves, …
        }
      }
      await serve(log)  // the program's work; when it ends, the watch and the socket end
      group.cancelAll()
    }
    // snippet: end
  }
}
