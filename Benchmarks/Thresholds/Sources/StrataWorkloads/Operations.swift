import Strata

/// Reads per operation of the two read workloads: one read is a few nanoseconds, below what the
/// allocation counter and callgrind's start-up resolve cleanly.
public let readsPerOperation = 1_000

/// The group the read and reload workloads bind: section `server`.
struct ServerSettings: SettingsGroup {
  @Setting var port = 8080
  @Setting var name = "strata"
}

/// `readsPerOperation` cached typed reads of `server.port` (the lock-free read path: 0 allocations).
func cachedTypedRead() -> @Sendable () -> Int {
  let store = SettingsStore.inMemory(Fixtures.serverTable(port: 8443))
  let server = ServerSettings(store: store)
  precondition(server.port == 8443, "the read fixture did not load")
  return {
    var sum = 0
    for _ in 0..<readsPerOperation { sum &+= server.port }
    return sum
  }
}

/// `readsPerOperation` reads of `server.port` from a snapshot by its dotted key.
func snapshotReadByKey() -> @Sendable () -> Int {
  let snapshot = SettingsStore.inMemory(Fixtures.serverTable(port: 8443)).snapshot
  precondition(snapshot.root.value(at: "server.port") != nil, "the snapshot fixture did not load")
  return {
    var found = 0
    for _ in 0..<readsPerOperation where snapshot.root.value(at: "server.port") != nil { found &+= 1 }
    return found
  }
}

/// One parse of a representative file (`Fixtures`: 20 sections of 10 settings) from its bytes.
func parse(_ text: String, format name: String, path: String) -> @Sendable () -> Int {
  guard let format = FormatRegistry.standard.format(named: name) else {
    preconditionFailure("no built-in format is named \(name)")
  }
  let bytes = Array(text.utf8)
  let options = ParseOptions()
  let parseOnce: @Sendable () -> Int = {
    guard let document = try? format.parse(bytes, path: path, options: options) else {
      preconditionFailure("the \(path) fixture does not parse")
    }
    return document.diagnostics.count &+ (document.root.table != nil ? 1 : 0)
  }
  precondition(parseOnce() == 1, "the \(path) fixture parses with diagnostics")
  return parseOnce
}

/// One reload of a store whose only layer changed one setting since the last load (an edit, in
/// memory, so it repeats exactly): load, merge, diff, publish, and the bound group's new value.
func storeReloadAfterEdit() -> @Sendable () -> Int {
  let layer = EditedLayer()
  let store = SettingsStore(layers: [layer])
  let server = ServerSettings(store: store)
  return {
    store.reload()
    return server.port
  }
}

/// One load of a command line of 100 `--section.key value` options into its document.
func commandLineLayer() -> @Sendable () -> Int {
  let arguments = Fixtures.commandLine
  let context = LoadContext()
  return {
    let contents = CommandLineLayer(arguments: arguments).load(context)
    return contents.documents.count &+ contents.diagnostics.count
  }
}
