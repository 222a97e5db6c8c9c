import Testing

@testable import Strata

@Suite struct EnvironmentNamesTests {
  @Test(arguments: [
    ("server.maxConnections", "DEMO_SERVER_MAX_CONNECTIONS"),
    ("server.port", "DEMO_SERVER_PORT"),
    ("db.pool_size", "DEMO_DB_POOL_SIZE"),
    ("server.tls.certPath", "DEMO_SERVER_TLS_CERT_PATH"),
    ("server.TLSCert", "DEMO_SERVER_TLS_CERT"),
    ("http2Port", "DEMO_HTTP2_PORT"),
    ("log-level", "DEMO_LOG_LEVEL"),
    ("a.b-c.d_e", "DEMO_A_B_C_D_E"),
  ])
  func generatedNames(key: String, name: String) {
    #expect(EnvironmentNames.variableName(forKey: key, prefix: "DEMO") == name)
  }

  @Test func prefixOfAnAppName() {
    #expect(EnvironmentNames.prefix(forApp: "demo") == "DEMO")
    #expect(EnvironmentNames.prefix(forApp: "my-server") == "MY_SERVER")
  }

  @Test func fallbackMapsByDoubleUnderscore() {
    #expect(EnvironmentNames.fallbackKey(forVariable: "DEMO_DB__POOL_SIZE", prefix: "DEMO") == "db.pool_size")
    #expect(EnvironmentNames.fallbackKey(forVariable: "DEMO_X", prefix: "DEMO") == "x")
    #expect(EnvironmentNames.fallbackKey(forVariable: "DEMO_", prefix: "DEMO") == nil)
    #expect(EnvironmentNames.fallbackKey(forVariable: "DEMO_A____B", prefix: "DEMO") == nil)
    #expect(EnvironmentNames.fallbackKey(forVariable: "OTHER_X", prefix: "DEMO") == nil)
  }
}

@Suite struct EnvironmentLayerTests {
  let known = ["server.maxConnections", "server.port", "db.pool_size"]

  func load(_ variables: [String: String], known: [String]? = nil) -> LayerContents {
    EnvironmentLayer(prefix: "DEMO", variables: variables).load(
      LoadContext(declaredKeys: known ?? self.known))
  }

  @Test func overridesAKnownKeyWithItsOrigin() throws {
    let contents = load(["DEMO_SERVER_MAX_CONNECTIONS": "64", "PATH": "/bin"])
    #expect(contents.diagnostics.isEmpty)
    let value = try #require(contents.documents.first?.root.value(at: "server.maxConnections"))
    #expect(value.kind == .string("64"))
    #expect(value.origin == .environment(variable: "DEMO_SERVER_MAX_CONNECTIONS"))
    #expect(value.origin.description == "env:DEMO_SERVER_MAX_CONNECTIONS")
  }

  @Test func unknownVariablesMapByDoubleUnderscoreAndAreReported() throws {
    let contents = load(["DEMO_CACHE__TTL_SECONDS": "5"])
    #expect(contents.documents.first?.root.value(at: "cache.ttl_seconds")?.kind == .string("5"))
    let diagnostic = try #require(contents.diagnostics.first)
    #expect(diagnostic.severity == .warning)
    #expect(diagnostic.error.code == .unknownKey)
    #expect(diagnostic.error.message.contains("DEMO_CACHE__TTL_SECONDS"))
    #expect(diagnostic.error.message.contains("cache.ttl_seconds"))
  }

  @Test func everyMistypedVariableGetsASuggestionFromTheDeclaredNames() throws {
    // The declared names are computed from the keys once per load, for the first mistyped variable.
    let contents = load(
      ["DEMO_SERVER_PROT": "1", "DEMO_SERVER_MAX_CONECTIONS": "2"],
      known: ["server.port", "server.maxConnections"])
    let messages = contents.diagnostics.map(\.error.message).sorted()
    #expect(messages.count == 2)
    #expect(messages.first?.contains("did you mean DEMO_SERVER_MAX_CONNECTIONS?") == true)
    #expect(messages.last?.contains("did you mean DEMO_SERVER_PORT?") == true)
  }

  @Test func wrongCaseIsReportedAndIgnored() throws {
    let contents = load(["demo_server_port": "1", "Demo_Server_Port": "2"])
    #expect(contents.documents.first?.root.table?.isEmpty == true)
    #expect(contents.diagnostics.count == 2)
    #expect(contents.diagnostics.allSatisfy { $0.error.message.contains("did you mean DEMO_SERVER_PORT?") })
  }

  @Test func collidingKeysAreReported() throws {
    let contents = load(
      ["DEMO_SERVER_MAX_CONNECTIONS": "7"], known: ["server.maxConnections", "server.max_connections"])
    let diagnostic = try #require(contents.diagnostics.first)
    #expect(diagnostic.error.code == .nameCollision)
    #expect(diagnostic.error.message.contains("'server.maxConnections' and 'server.max_connections'"))
    let root = try #require(contents.documents.first?.root)
    #expect(root.value(at: "server.maxConnections")?.kind == .string("7"))
    #expect(root.value(at: "server.max_connections")?.kind == .string("7"))
  }

  @Test func declaredKeysAreKnownWithoutLowerLayers() {
    let layer = EnvironmentLayer(
      prefix: "DEMO", variables: ["DEMO_LOG_LEVEL": "debug"], declaredKeys: ["log.level"])
    let contents = layer.load(LoadContext())
    #expect(contents.diagnostics.isEmpty)
    #expect(contents.documents.first?.root.value(at: "log.level")?.kind == .string("debug"))
  }

  @Test func emptyValueStillOverrides() {
    let contents = load(["DEMO_SERVER_PORT": ""])
    #expect(contents.documents.first?.root.value(at: "server.port")?.kind == .string(""))
  }
}
