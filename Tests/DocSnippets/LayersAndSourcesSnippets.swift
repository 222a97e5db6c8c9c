import Strata
import Synchronization

/// LayersAndSources.md.
enum LayersAndSources {
  static func secretsLayer() -> KeyPerFileLayer {
    // snippet: key-per-file
    let secrets = KeyPerFileLayer(directory: "/run/secrets/demo", keyPrefix: "database")
    // snippet: end
    return secrets
  }

  // snippet: counting
  final class CountingLayer: Layer, Sendable {
    let scope = Scope.system
    let name = "counting"
    private let loads = Atomic<Int>(0)

    func load(_ context: LoadContext) -> LayerContents {
      let count = loads.add(1, ordering: .relaxed).newValue
      let root = SettingValue(
        .table(SettingTable([("count", SettingValue(.integer(count), origin: .runtime))])), origin: .runtime)
      return LayerContents(documents: [Document(path: "counting", root: root)])
    }
  }
  // snippet: end

  static func countingStore() -> SettingsStore {
    // snippet: counting-store
    let store = SettingsStore(layers: StandardLayout(app: "demo").layers + [CountingLayer()])
    // snippet: end
    return store
  }
}

/// The pushing source of LayersAndSources.md, also run through the conformance kit (TestingSources).
// snippet: pushing
final class PushingSource: Layer, Sendable {
  let scope = Scope.system
  let name = "pushing"
  private let values = Mutex<SettingTable>(SettingTable())
  private let signals: AsyncStream<Void>
  private let continuation: AsyncStream<Void>.Continuation

  init() { (signals, continuation) = AsyncStream<Void>.makeStream() }

  func push(_ value: String, forName name: String) {
    values.withLock { $0[name] = SettingValue(.string(value), origin: .runtime) }
    continuation.yield()  // after the new values are in place
  }

  func load(_ context: LoadContext) -> LayerContents {
    let root = SettingValue(.table(values.withLock { $0 }), origin: .runtime)
    return LayerContents(documents: [Document(path: "pushing", root: root)])
  }

  func follow(signal: @escaping @Sendable () -> Void) async {
    for await _ in signals { signal() }
  }
}
// snippet: end
