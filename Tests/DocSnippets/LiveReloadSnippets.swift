import Strata

/// LiveReload.md.
enum LiveReload {
  final class ServerSettings: SettingsGroup, @unchecked Sendable {
    @Setting var port = 8080
  }

  static func run() async {
    // snippet: run
    let store = SettingsStore(app: "demo")
    let server = ServerSettings(store: store)
    Task.detached { await store.run(reloadOnHangup: true) }  // watch until cancelled
    Task { for await event in store.events { print(event) } }  // reloaded, failed(error), …
    for await port in server.$port.values {  // the current value, then each change
      print("port \(port)")
    }
    // snippet: end
  }

  static func pending(_ store: SettingsStore) {
    // snippet: pending
    for restart in store.pendingRestarts { print(restart) }
    // snippet: end
  }

  static func main() throws {
    // snippet: hangup
    SettingsStore.catchHangupSignals()  // first thing in main
    let store = SettingsStore(app: "demo")
    let server = ServerSettings(store: store)  // every group first,
    try store.requireAll()  // then the required settings, all at once
    Task.detached { await store.run(reloadOnHangup: true) }
    // snippet: end
    print(server.port)
  }

  static func requests(_ store: SettingsStore) {
    // snippet: requests
    let (requests, request) = AsyncStream<Void>.makeStream()
    Task { await store.run(reloadRequests: requests) }
    request.yield()  // reload now
    // snippet: end
  }
}
