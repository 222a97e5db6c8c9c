import Testing

@testable import Strata

/// On a command line the last option wins, as with `getopt_long` and git (`--color=always --no-color`);
/// repetition makes a list only for a list setting or a key nothing declares.
struct ListKindSettings: SettingsGroup {
  static var section: String { "lists" }
  @Setting var names: [String] = []
  @Setting var ports: Set<Int> = []
  @Setting var maybe: [String]? = nil
  @Setting var single = "x"
  @Setting var count = 1
}

@Suite struct LastOptionWinsTests {
  func root(_ arguments: [String], declared: DeclaredKeys = DeclaredKeys()) throws -> SettingValue {
    var context = LoadContext()
    context.declared = declared
    return try #require(CommandLineLayer(arguments: arguments).load(context).documents.first?.root)
  }

  @Test func aBareFlagAfterAValueWinsAndAValueAfterAFlagWins() throws {
    let root = try root(["--server.debug=true", "--no-server.debug", "--verbose", "--verbose=false"])
    #expect(root.value(at: "server.debug")?.kind == .string("false"))
    #expect(root.value(at: "server.debug")?.origin == .commandLine(option: "--no-server.debug"))
    #expect(root.value(at: "verbose")?.kind == .string("false"))
  }

  @Test func aRepeatedScalarSettingTakesTheLastValue() throws {
    var declared = DeclaredKeys()
    declared.add("server.port")
    let root = try root(["--server.port", "1", "--server.port=2"], declared: declared)
    #expect(root.value(at: "server.port")?.kind == .string("2"))
  }

  @Test func aFieldOfADeclaredTableTakesTheLastValue() throws {
    var declared = DeclaredKeys()
    declared.add("http.tls")
    let root = try root(["--http.tls.enabled=true", "--http.tls.enabled=false"], declared: declared)
    #expect(root.value(at: "http.tls.enabled")?.kind == .string("false"))
  }

  @Test func aDeclaredListAndAnUndeclaredKeyCollectTheirValues() throws {
    var declared = DeclaredKeys()
    declared.add("server.allowedOrigins", isList: true)
    declared.add("server.port")
    let root = try root(
      ["--server.allowedOrigins", "a", "--server.allowedOrigins=b", "--tags", "x", "--tags", "y"],
      declared: declared)
    #expect(root.value(at: "server.allowedOrigins")?.kind == .array(["a", "b"].map(string)))
    #expect(root.value(at: "tags")?.kind == .array(["x", "y"].map(string)))
  }

  @Test func aBareFlagEndsAList() throws {
    let root = try root([
      "--tags", "a", "--tags", "b", "--no-tags", "--items", "a", "--items", "--items", "c",
    ])
    #expect(root.value(at: "tags")?.kind == .string("false"))
    #expect(root.value(at: "items")?.kind == .string("c"))
  }

  @Test func aStoreRunsWithTheLastOfEachOption() throws {
    try withTemporaryDirectory { dir in
      let store = SettingsStore(
        app: "demo", root: dir, environment: [:],
        arguments: [
          "--server.port", "1", "--server.port", "2", "--server.verbose=true", "--no-server.verbose",
          "--server.allowedOrigins", "a", "--server.allowedOrigins", "b",
        ])
      let server = FlagSettings(store: store)
      #expect(server.port == 2)
      #expect(server.$port.origin == .commandLine(option: "--server.port"))
      #expect(server.verbose == false)
      #expect(server.allowedOrigins == ["a", "b"])
      #expect(store.diagnostics.filter { $0.severity == .error }.isEmpty)
    }
  }

  @Test func arraysSetsAndOptionalArraysAreListsAndOtherTypesAreNot() throws {
    try withTemporaryDirectory { dir in
      let store = SettingsStore(
        app: "demo", root: dir, environment: [:],
        arguments: [
          "--lists.ports", "1", "--lists.ports", "2", "--lists.maybe", "a", "--lists.maybe", "b",
          "--lists.single", "y", "--lists.single", "z",
        ])
      let lists = ListKindSettings(store: store)
      let declared = store.state.withLock { $0.registry.declared.lists }
      #expect(declared == ["lists.names", "lists.ports", "lists.maybe"])
      #expect(lists.ports == [1, 2])
      #expect(lists.maybe == ["a", "b"])
      #expect(lists.single == "z")
    }
  }

  private func string(_ text: String) -> SettingValue {
    SettingValue(.string(text), origin: .commandLine(option: "--x"))
  }
}
