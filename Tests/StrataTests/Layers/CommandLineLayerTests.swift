import Testing

@testable import Strata

struct FlagSettings: SettingsGroup {
  static var section: String { "server" }
  @Setting var port = 8080
  @Setting var debug = true
  @Setting var verbose = false
  @Setting var allowedOrigins: [String] = []
  @Setting var offset = 0
}

@Suite struct CommandLineLayerTests {
  func root(_ arguments: [String]) throws -> SettingValue {
    let contents = CommandLineLayer(arguments: arguments).load(LoadContext())
    return try #require(contents.documents.first?.root)
  }

  @Test func spaceAndEqualsFormsSetAKeyWithTheOptionAsOrigin() throws {
    let root = try root(["--server.port", "9000", "--server.host=0.0.0.0"])
    let port = try #require(root.value(at: "server.port"))
    #expect(port.kind == .string("9000"))
    #expect(port.origin == .commandLine(option: "--server.port"))
    #expect(port.origin.description == "arg:--server.port")
    #expect(root.value(at: "server.host")?.kind == .string("0.0.0.0"))
    #expect(root.value(at: "server.host")?.origin.description == "arg:--server.host")
  }

  @Test func bareFlagIsTrueAndNoFlagIsFalse() throws {
    let root = try root(["--debug", "--no-verbose", "--trace", "--", "--quiet"])
    #expect(root.value(at: "debug")?.kind == .string("true"))
    #expect(root.value(at: "verbose")?.kind == .string("false"))
    #expect(root.value(at: "verbose")?.origin.description == "arg:--no-verbose")
    #expect(root.value(at: "trace")?.kind == .string("true"))
    // After `--`, everything belongs to the program.
    #expect(root.value(at: "quiet") == nil)
  }

  @Test func repeatedOptionsMakeAListAndRepeatedFlagsTakeTheLast() throws {
    let root = try root(["--tags", "a", "--tags=b", "--debug", "--no-debug"])
    guard case .array(let items)? = root.value(at: "tags")?.kind else {
      Issue.record("expected a list")
      return
    }
    #expect(items.map(\.kind) == [.string("a"), .string("b")])
    #expect(items.map(\.origin.description) == ["arg:--tags", "arg:--tags"])
    #expect(root.value(at: "debug")?.kind == .string("false"))
  }

  @Test func positionalAndSingleDashArgumentsAreLeftAlone() throws {
    let root = try root(["input.txt", "-v", "--offset", "-5", "--level", "-q", "--name", "-"])
    #expect(root.value(at: "offset")?.kind == .string("-5"))
    #expect(root.value(at: "level")?.kind == .string("true"))
    #expect(root.value(at: "name")?.kind == .string("-"))
    #expect(root.table?.count == 3)
  }

  @Test func quotedNamesFollowSettingKeyRules() throws {
    let root = try root([#"--www."listen.owner"=nobody"#, #"--"a=b".c"#, "1"])
    #expect(root.value(at: #"www."listen.owner""#)?.kind == .string("nobody"))
    #expect(root.table?["www"]?.table?["listen.owner"] != nil)
    #expect(root.value(at: #""a=b".c"#)?.kind == .string("1"))
  }

  @Test func anOptionWithoutAKeyIsReported() throws {
    let contents = CommandLineLayer(arguments: ["--=1"]).load(LoadContext())
    let diagnostic = try #require(contents.diagnostics.first)
    #expect(diagnostic.error.path == "arg:--=1")
    #expect(diagnostic.error.message.contains("argument 1"))
  }

  @Test func aDeclaredBoolFlagLeavesAPositionalArgumentToTheProgram() throws {
    try withTemporaryDirectory { dir in
      let store = SettingsStore(
        app: "demo", root: dir, environment: [:],
        arguments: ["--server.verbose", "input.txt", "--no-server.debug", "output.txt", "--server.port", "9"])
      let server = FlagSettings(store: store)
      #expect(server.verbose == true)
      #expect(server.debug == false)
      #expect(server.port == 9)
      #expect(store.snapshot.value(forKey: "server.verbose")?.kind == .string("true"))
      #expect(!store.diagnostics.contains { $0.error.message.contains("input.txt") })
      // A Bool word after the flag is still its value.
      let words = SettingsStore(
        app: "demo", root: dir, environment: [:],
        arguments: ["--server.verbose", "off", "--server.debug", "YES"])
      let flags = FlagSettings(store: words)
      #expect(flags.verbose == false)
      #expect(flags.debug == true)
    }
  }

  @Test func storeConvertsAgainstDeclaredTypesAboveTheEnvironment() throws {
    try withTemporaryDirectory { dir in
      let store = SettingsStore(
        app: "demo", root: dir, environment: ["DEMO_SERVER_PORT": "7000", "DEMO_SERVER_DEBUG": "yes"],
        arguments: [
          "serve", "--server.port=9000", "--no-server.debug", "--server.allowedOrigins", "a",
          "--server.allowedOrigins", "b", "--server.offset", "-3",
        ])
      let server = FlagSettings(store: store)
      #expect(server.port == 9000)
      #expect(server.$port.origin.description == "arg:--server.port")
      #expect(server.$port.shadowed.map(\.origin.description) == ["env:DEMO_SERVER_PORT"])
      #expect(server.debug == false)
      #expect(server.allowedOrigins == ["a", "b"])
      #expect(server.offset == -3)
      #expect(store.snapshot.entry(forKey: "server.port")?.scope == .commandLine)
    }
  }

  @Test func unknownOptionsAreReportedWithSuggestions() throws {
    let store = SettingsStore(layers: [
      CommandLineLayer(arguments: ["--server.prot", "1", "--no-server.debugg"])
    ])
    let server = FlagSettings(store: store)
    defer { withExtendedLifetime(server) {} }
    let messages = store.diagnostics.filter { $0.error.code == .unknownKey }.map(\.description)
    #expect(
      messages.contains(
        "arg:--server.prot: warning: unknown option '--server.prot' (did you mean '--server.port'?)"))
    #expect(
      messages.contains(
        "arg:--no-server.debugg: warning: unknown option '--no-server.debugg' (did you mean '--no-server.debug'?)"
      ))
  }

  @Test func badValueNamesTheOption() throws {
    let store = SettingsStore(layers: [CommandLineLayer(arguments: ["--server.port", "80a"])])
    let server = FlagSettings(store: store)
    #expect(server.port == 8080)
    let error = try #require(store.diagnostics.first { $0.error.code == .typeMismatch })
    #expect(error.description.hasPrefix("arg:--server.port: error: expected Int for server.port"))
  }
}

@Suite struct CommandLineOriginDumpTests {
  @Test func originsPrintAsTheOptionInTableAndJSONDumps() throws {
    let store = SettingsStore(layers: [
      EnvironmentLayer(prefix: "DEMO", variables: ["DEMO_SERVER_PORT": "7000"]),
      CommandLineLayer(arguments: ["--server.port", "9000"]),
    ])
    let table = try Dump.render(
      store.snapshot, options: DumpOptions(showOrigin: true, showShadowed: true, environmentPrefix: "DEMO"))
    #expect(table.contains("9000"))
    #expect(table.contains("arg:--server.port"))
    #expect(table.contains("env:DEMO_SERVER_PORT"))
    let json = try Dump.render(store.snapshot, options: DumpOptions(format: .json, showOrigin: true))
    #expect(json.contains("\"arg:--server.port\""))
  }
}
