import Strata

struct ChildWatchedSettings: SettingsGroup {
  static var section: String { "app" }
  @Setting var value = "default"
}

/// Runs the store's watcher over FILE and prints `fallback PATH: MESSAGE` for each watcher fallback,
/// `ready` once everything is watched, and `value V` for the value at start and at each change.
func runWatcher(file: String) async {
  let store = SettingsStore(layers: [FileLayer(scope: .user, files: [file])])
  let settings = ChildWatchedSettings(store: store)
  let events = store.events
  let values = settings.$value.values
  let running = Task { await store.run(onReady: { say("ready") }) }
  let printer = Task {
    for await value in values { say("value \(value)") }
  }
  for await event in events {
    if case .watcherFallback(let path, let message) = event { say("fallback \(path): \(message)") }
  }
  running.cancel()
  printer.cancel()
}
