import Strata
import Synchronization

struct GenerationSettings: SettingsGroup {
  static var section: String { "app" }
  @Setting var value = "default"
  @Setting var count = 0
  @Setting var extra = "none"
}

/// A value as one word: its text, or `-` when the snapshot has none (the setting's default applies).
private func word(_ value: SettingValue?) -> String {
  guard let value else { return "-" }
  switch value.kind {
  case .string(let text): return text.isEmpty ? "\"\"" : text
  case .integer(let number): return String(number)
  default: return value.description
  }
}

/// Runs a store over FILE with the drop-ins of DROPINS (one system layer) and prints every generation it
/// publishes, read from the store's snapshot in an event observer (which runs in the store's pipeline as
/// the generation is announced, before the next one is built, so that none is missed):
/// `gen N value=V count=C extra=E` (`-` for a key the snapshot lacks); `failed …` and `recovered …` for
/// those events; `ready` (after the first generation's line) once every watch is set. Runs until killed.
func runGenerations(file: String, dropIns: String) async {
  let store = SettingsStore(layers: [FileLayer(scope: .system, files: [file], dropInDirectory: dropIns)])
  let settings = GenerationSettings(store: store)
  let printed = Mutex(0)
  @Sendable func printGeneration() {
    let snapshot = store.snapshot
    printed.withLock { last in
      guard snapshot.generation > last else { return }
      last = snapshot.generation
      let values = ["value", "count", "extra"].map { "\($0)=\(word(snapshot.root.value(at: "app." + $0)))" }
      say("gen \(snapshot.generation) " + values.joined(separator: " "))
    }
  }
  store.observeEvents { event in
    printGeneration()
    switch event {
    case .failed(let error): say("failed \(error)")
    case .recovered(let error): say("recovered \(error)")
    default: break
    }
  }
  await store.run(onReady: {
    printGeneration()
    say("ready")
  })
  _ = settings
}
