import Testing

@testable import Strata

/// The environment layer costs what the environment holds, not what the files hold: a variable walks
/// only the tables its name leads to, and a file that did not change keeps what was computed for it.
@Suite struct EnvironmentCostTests {
  /// A document of `sections` tables of `keys` keys each (`s0.k0` …).
  func wideDocument(sections: Int, keys: Int, path: String = "wide") -> Document {
    var root = SettingTable()
    for s in 0..<sections {
      var table = SettingTable()
      for k in 0..<keys { table["key\(k)"] = SettingValue(.integer(k), origin: .runtime) }
      root["section\(s)"] = SettingValue(.table(table), origin: .runtime)
    }
    return Document(path: path, root: SettingValue(.table(root), origin: .runtime))
  }

  @Test func aVariableWalksOnlyTheTablesItsNameLeadsTo() throws {
    let document = wideDocument(sections: 200, keys: 500)  // 100,000 keys
    let layer = EnvironmentLayer(prefix: "DEMO", variables: ["DEMO_SECTION7_KEY42": "x", "PATH": "/bin"])
    let contents = layer.load(LoadContext(lowerDocuments: [document]))
    #expect(contents.diagnostics.isEmpty)
    #expect(contents.documents.first?.root.value(at: "section7.key42")?.kind == .string("x"))
    // The root and section7: not the other 199 tables, not 100,000 generated names.
    #expect(document.environmentIndex.indexedTableCount == 2)
  }

  @Test func noVariableNoWork() {
    let document = wideDocument(sections: 50, keys: 50)
    let contents = EnvironmentLayer(prefix: "DEMO", variables: ["HOME": "/root"])
      .load(LoadContext(lowerDocuments: [document]))
    #expect(contents.diagnostics.isEmpty)
    #expect(document.environmentIndex.indexedTableCount == 0)
  }

  @Test func namesAreMatchedThroughCamelCaseDotsAndEmptyParts() throws {
    let json =
      #"{"server": {"maxConnections": 1, "tls": {"certPath": "a"}}, "www": {"listen.owner": "x"}, "-": {"port": 1}}"#
    let document = try parse(json, as: JSONFormat())
    let variables = [
      "DEMO_SERVER_MAX_CONNECTIONS": "9", "DEMO_SERVER_TLS_CERT_PATH": "b", "DEMO_WWW_LISTEN_OWNER": "y",
      "DEMO_PORT": "2",
    ]
    let contents = EnvironmentLayer(prefix: "DEMO", variables: variables)
      .load(LoadContext(lowerDocuments: [document]))
    #expect(contents.diagnostics.isEmpty)
    let root = try #require(contents.documents.first?.root)
    #expect(root.value(at: "server.maxConnections")?.kind == .string("9"))
    #expect(root.value(at: "server.tls.certPath")?.kind == .string("b"))
    #expect(root.value(at: #"www."listen.owner""#)?.kind == .string("y"))
    #expect(root.value(at: "-.port")?.kind == .string("2"))
  }

  @Test func aLeafWhoseNameAddsNothingIsFoundAtTheEndOfTheName() throws {
    let document = try parse(#"{"a": {"-": 1}, "b": {"x": {"--": 2}}}"#, as: JSONFormat())
    let contents = EnvironmentLayer(prefix: "DEMO", variables: ["DEMO_A": "9", "DEMO_B_X": "8"])
      .load(LoadContext(lowerDocuments: [document]))
    #expect(contents.diagnostics.isEmpty)
    let root = try #require(contents.documents.first?.root)
    #expect(root.value(at: "a.-")?.kind == .string("9"))
    #expect(root.value(at: "b.x.--")?.kind == .string("8"))
  }

  @Test func aTableIsNotALeafAndAMistypedNameGetsASuggestionFromItsTable() throws {
    let document = try parse(#"{"server": {"port": 1, "host": "a"}}"#, as: JSONFormat())
    let contents = EnvironmentLayer(prefix: "DEMO", variables: ["DEMO_SERVER": "x", "DEMO_SERVER_PROT": "2"])
      .load(LoadContext(lowerDocuments: [document]))
    let messages = contents.diagnostics.map(\.error.message)
    #expect(messages.count == 2)
    #expect(messages.contains { $0.contains("DEMO_SERVER matches no known setting") })
    #expect(
      messages.contains {
        $0.contains("DEMO_SERVER_PROT matches no known setting")
          && $0.contains("did you mean DEMO_SERVER_PORT?")
      })
  }

  @Test func aKeyOfAFileAndADeclaredKeyThatShareANameAreBothSetAndReported() throws {
    let document = try parse(#"{"server": {"max_connections": 1}}"#, as: JSONFormat())
    let contents = EnvironmentLayer(prefix: "DEMO", variables: ["DEMO_SERVER_MAX_CONNECTIONS": "7"])
      .load(LoadContext(declaredKeys: ["server.maxConnections"], lowerDocuments: [document]))
    let diagnostic = try #require(contents.diagnostics.first)
    #expect(diagnostic.error.code == .nameCollision)
    #expect(diagnostic.error.message.contains("'server.maxConnections' and 'server.max_connections'"))
    let root = try #require(contents.documents.first?.root)
    #expect(root.value(at: "server.maxConnections")?.kind == .string("7"))
    #expect(root.value(at: "server.max_connections")?.kind == .string("7"))
  }

  @Test func anEditToOneFileKeepsWhatWasComputedForTheOthers() throws {
    try withTemporaryDirectory { dir in
      try write(#"{"big": {"a": 1, "b": 2}}"#, to: dir + "/etc/app/app.json")
      try write("[small]\nx = 1\n", to: dir + "/etc/app/conf.d/10-small.ini")
      let store = SettingsStore(
        layers: [
          FileLayer(scope: .system, files: ["/etc/app/app.json"], dropInDirectory: "/etc/app/conf.d"),
          EnvironmentLayer(prefix: "APP", variables: ["APP_BIG_A": "5"]),
        ],
        options: ParseOptions(resolvePath: rootResolver(dir)))
      #expect(store.snapshot.value(forKey: "big.a")?.kind == .string("5"))
      func bigIndex() -> EnvironmentKeyIndex? {
        store.snapshot.sources.first { $0.document.path == "/etc/app/app.json" }?.document.environmentIndex
      }
      let before = try #require(bigIndex())
      #expect(before.indexedTableCount == 2)
      try write("[small]\nx = 2\n", to: dir + "/etc/app/conf.d/10-small.ini")
      store.reload(paths: ["/etc/app/conf.d/10-small.ini"])
      #expect(store.snapshot.value(forKey: "small.x")?.kind == .string("2"))
      #expect(bigIndex() === before)
    }
  }
}
