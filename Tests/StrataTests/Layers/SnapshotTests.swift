import Testing

@testable import Strata

/// A table from `(dotted key, value)` pairs, every node with a file origin at the given line.
func tree(_ path: String, _ pairs: [(String, SettingValue.Kind, Int)]) -> SettingValue {
  var root = SettingValue.emptyTable(origin: .file(path: path, line: 1, column: 1))
  for (key, kind, line) in pairs {
    root.set(SettingValue(kind, origin: .file(path: path, line: line, column: 5)), at: key)
  }
  return root
}

@Suite struct SnapshotTests {
  let vendor = tree(
    "/usr/lib/demo/demo.json",
    [
      ("server.port", .integer(8080), 2), ("server.host", .string("127.0.0.1"), 3),
      ("log.level", .string("info"), 4),
    ])
  let system = tree(
    "/etc/demo/demo.ini", [("server.port", .string("8443"), 7), ("server.tls.enabled", .string("yes"), 9)])

  func snapshot(_ sources: [(Scope, SettingValue)]) -> Snapshot {
    Snapshot(
      generation: 3,
      sources: sources.map {
        Snapshot.Source(scope: $0.0, document: Document(path: $0.1.origin.path ?? "x", root: $0.1))
      })
  }

  @Test func laterLayersWinPerLeafAndTablesMerge() throws {
    let s = snapshot([(.vendor, vendor), (.system, system)])
    #expect(s.generation == 3)
    #expect(s.keys == ["server.port", "server.host", "server.tls.enabled", "log.level"])
    let port = try #require(s.entry(forKey: "server.port"))
    #expect(port.value == SettingValue(.string("8443"), origin: .codeDefault))
    #expect(port.origin == .file(path: "/etc/demo/demo.ini", line: 7, column: 5))
    #expect(port.scope == .system)
    #expect(s.entry(forKey: "server.host")?.origin.path == "/usr/lib/demo/demo.json")
    #expect(s.entry(forKey: "server.host")?.scope == .vendor)
  }

  @Test func shadowedValuesAreListedNearestFirst() throws {
    let user = tree("/home/u/.config/demo/demo.json", [("server.port", .integer(9000), 2)])
    let s = snapshot([(.vendor, vendor), (.system, system), (.user, user)])
    let port = try #require(s.entry(forKey: "server.port"))
    #expect(port.value.kind == .integer(9000))
    #expect(port.shadowed.map(\.scope) == [.system, .vendor])
    #expect(
      port.shadowed.map(\.value.origin.description) == [
        "/etc/demo/demo.ini:7:5", "/usr/lib/demo/demo.json:2:5",
      ])
    #expect(s.entry(forKey: "log.level")?.shadowed.isEmpty == true)
  }

  @Test func arraysReplaceRatherThanConcatenate() throws {
    let low = tree("a", [("origins", .array([SettingValue(.string("x"), origin: .codeDefault)]), 1)])
    let high = tree(
      "b",
      [
        (
          "origins",
          .array([
            SettingValue(.string("y"), origin: .codeDefault),
            SettingValue(.string("z"), origin: .codeDefault),
          ]), 1
        )
      ])
    let s = snapshot([(.system, low), (.user, high)])
    #expect(s.value(forKey: "origins").map(ValueText.plain) == "[y, z]")
    #expect(s.entry(forKey: "origins")?.shadowed.count == 1)
  }

  @Test func aScalarOverATableReplacesTheWholeSubtree() throws {
    let high = tree("b", [("server", .string("off"), 1)])
    let s = snapshot([(.vendor, vendor), (.user, high)])
    #expect(s.keys == ["server", "log.level"])
    #expect(s.entry(forKey: "server.port") == nil)
    #expect(s.value(forKey: "server")?.kind == .string("off"))
  }

  @Test func aTableOverAScalarReplacesIt() throws {
    let low = tree("a", [("server", .string("off"), 1)])
    let s = snapshot([(.system, low), (.user, vendor)])
    #expect(s.entry(forKey: "server") == nil)
    #expect(s.entry(forKey: "server.port")?.value.kind == .integer(8080))
  }

  @Test func keysAreCaseSensitive() {
    let a = tree("a", [("server.Port", .integer(1), 1)])
    let s = snapshot([(.vendor, vendor), (.user, a)])
    #expect(s.entry(forKey: "server.port")?.value.kind == .integer(8080))
    #expect(s.entry(forKey: "server.Port")?.value.kind == .integer(1))
  }

  @Test func emptySnapshotHasNothing() {
    #expect(Snapshot.empty.keys.isEmpty)
    #expect(Snapshot.empty.value(forKey: "a") == nil)
    #expect(!Snapshot.empty.hasErrors)
  }

  @Test func layerStackCollectsDiagnosticsAndKnownKeys() {
    let stack = LayerStack(layers: [
      StaticLayer(scope: .vendor, root: vendor),
      EnvironmentLayer(prefix: "DEMO", variables: ["DEMO_SERVER_HOST": "0.0.0.0", "DEMO_NOPE": "1"]),
    ])
    let s = stack.load(generation: 7)
    #expect(s.generation == 7)
    #expect(s.entry(forKey: "server.host")?.origin == .environment(variable: "DEMO_SERVER_HOST"))
    #expect(s.entry(forKey: "server.host")?.scope == .environment)
    #expect(s.diagnostics.map(\.error.code) == [.unknownKey])
    #expect(!s.hasErrors)
  }
}
