import Strata

/// LiveReload.md.
enum LiveReload {
  struct ServerSettings: SettingsGroup {
    @Setting var port = 8080
  }

  static func run() async {
    // snippet: run
    let store = SettingsStore(app: "demo")
    let server = ServerSettings(store: store)
    await withDiscardingTaskGroup { group in
      group.addTask { await store.run(reloadOnHangup: true) }  // watch until cancelled
      group.addTask { for await event in store.events { print(event) } }  // reloaded, failed(error), …
      for await port in server.$port.values {  // the current value, then each change
        print("port \(port)")
      }
      group.cancelAll()  // the values end with store.shutdown(); then so do the watch and the events
    }
    // snippet: end
  }

  static func pending(_ store: SettingsStore) {
    // snippet: pending
    for restart in store.pendingRestarts { print(restart) }
    // snippet: end
  }

  /// The program's own work.
  static func serve(_ server: ServerSettings) async {
    print(server.port)
  }

  static func serve(_ store: SettingsStore) async {
    print(store.snapshot.generation)
  }

  static func main() async throws {
    // snippet: hangup
    SettingsStore.catchHangupSignals()  // first thing in main
    let store = SettingsStore(app: "demo")
    let server = ServerSettings(store: store)  // every group first,
    try store.requireAll()  // then the required settings, all at once
    await withDiscardingTaskGroup { group in
      group.addTask { await store.run(reloadOnHangup: true) }
      await serve(server)  // the program's work; when it ends, so does the watch
      group.cancelAll()
    }
    // snippet: end
  }

  static func requests(_ store: SettingsStore) async {
    // snippet: requests
    let (requests, request) = AsyncStream<Void>.makeStream()
    await withDiscardingTaskGroup { group in
      group.addTask { await store.run(reloadRequests: requests) }
      request.yield()  // read every layer again
      await serve(store)  // the program's work; when it ends, so does the run
      group.cancelAll()
    }
    // snippet: end
  }
}
