import Testing

@testable import Strata

struct RenamedPoolSettings: SettingsGroup {
  static var section: String { "server" }
  @Setting(key: "max_connections", aliases: ["maxConn"]) var maxConnections = 10
}

@Suite struct RenamedKeyTests {
  func store(_ files: [(String, String)], in dir: String, variables: [String: String] = [:]) throws
    -> SettingsStore
  {
    var layers: [any Layer] = []
    for (name, text) in files {
      try write(text, to: dir + "/" + name)
      layers.append(FileLayer(scope: .system, files: [dir + "/" + name]))
    }
    layers.append(EnvironmentLayer(prefix: "DEMO", variables: variables))
    return SettingsStore(layers: layers)
  }

  @Test func theOldNameIsReadAndReportedAsDeprecatedAtItsKey() throws {
    try withTemporaryDirectory { dir in
      let store = try store([("a.ini", "[server]\nmaxConn = 50\n")], in: dir)
      let pool = RenamedPoolSettings(store: store)
      #expect(pool.maxConnections == 50)
      #expect(pool.$maxConnections.origin == .file(path: dir + "/a.ini", line: 2, column: 11))
      #expect(pool.$maxConnections.aliases == ["server.maxConn"])
      let warnings = store.diagnostics.map(\.description)
      #expect(
        warnings == [
          "\(dir)/a.ini:2:1: warning: 'server.maxConn' is deprecated; rename it to 'server.max_connections'"
        ])
    }
  }

  @Test func whenBothAreSetTheNewNameWinsAndTheOldIsIgnored() throws {
    try withTemporaryDirectory { dir in
      let store = try store([("a.ini", "[server]\nmaxConn = 50\nmax_connections = 60\n")], in: dir)
      let pool = RenamedPoolSettings(store: store)
      #expect(pool.maxConnections == 60)
      #expect(
        store.diagnostics.map(\.description) == [
          "\(dir)/a.ini:2:1: warning: 'server.maxConn' is ignored: 'server.max_connections' is set too; "
            + "remove the old name"
        ])
    }
  }

  @Test func aHigherLayerWinsWhicheverNameItUses() throws {
    try withTemporaryDirectory { dir in
      let store = try store(
        [("vendor.ini", "[server]\nmax_connections = 60\n"), ("etc.ini", "[server]\nmaxConn = 70\n")], in: dir
      )
      let pool = RenamedPoolSettings(store: store)
      #expect(pool.maxConnections == 70)
      #expect(pool.$maxConnections.shadowed.map(\.value) == ["60"])
    }
  }

  @Test func theOldEnvironmentVariableStillWorks() throws {
    try withTemporaryDirectory { dir in
      let store = try store([], in: dir, variables: ["DEMO_SERVER_MAX_CONN": "7"])
      let pool = RenamedPoolSettings(store: store)
      #expect(pool.maxConnections == 7)
      #expect(pool.$maxConnections.origin == .environment(variable: "DEMO_SERVER_MAX_CONN"))
      let diagnostics = store.diagnostics
      #expect(diagnostics.allSatisfy { $0.error.code != .unknownKey })
      #expect(
        diagnostics.map(\.description) == [
          "env:DEMO_SERVER_MAX_CONN: warning: 'server.maxConn' is deprecated; rename it to 'server.max_connections'"
        ])
    }
  }

  @Test func anEditOfTheOldKeyIsPickedUpOnReload() throws {
    try withTemporaryDirectory { dir in
      let store = try store([("a.ini", "[server]\nmaxConn = 50\n")], in: dir)
      let pool = RenamedPoolSettings(store: store)
      #expect(pool.maxConnections == 50)
      try write("[server]\nmaxConn = 60\n", to: dir + "/a.ini")
      store.reload(paths: [dir + "/a.ini"])
      #expect(pool.maxConnections == 60)
    }
  }

  @Test func theOldOptionStillWorks() {
    let store = SettingsStore(layers: [CommandLineLayer(arguments: ["--server.maxConn=9"])])
    let pool = RenamedPoolSettings(store: store)
    #expect(pool.maxConnections == 9)
    #expect(store.diagnostics.map(\.error.code) == [.deprecated])
  }
}
