import Foundation
import Testing

@testable import Strata

/// The environment and the command line get the limits files get (``ParseOptions``): a key deeper than
/// `maxDepth` is refused by name instead of overflowing the stack, and so are the entries past
/// `maxValues` or `maxFileSize`.
@Suite struct EnvironmentAndArgumentLimitTests {
  /// `PROBE_A__A__…__A` with 20,000 names, as the issue gives it.
  static let deepVariable = "PROBE_" + Array(repeating: "A", count: 20_000).joined(separator: "__")
  /// `--a.a.….a` with 20,000 names.
  static let deepOption = "--" + Array(repeating: "a", count: 20_000).joined(separator: ".")

  @Test func configDumpRefusesADeepVariableByNameAndShowsTheRest() async throws {
    try await withTemporaryDirectory { dir in
      let run = try await runConfigDump(
        ["--app", "probe", "--root", dir], environment: [Self.deepVariable: "1", "PROBE_PORT": "8080"])
      // It ends by itself, with the error, not by SIGSEGV (139).
      #expect(run.status == 1, "status \(run.status): \(run.errors.prefix(300))")
      #expect(run.errors.contains("environment variable PROBE_A__A__"))
      #expect(run.errors.contains("20000 levels deep, deeper than the limit of 512 (ParseOptions.maxDepth)"))
      #expect(run.errors.contains("it is ignored"))
      // The message names the variable shortened, not 60 KB of it.
      #expect(run.errors.utf8.count < 2_000)
      #expect(run.output.contains("8080"))
    }
  }

  @Test func aDeepVariableIsIgnoredAndTheOthersApply() throws {
    let contents = EnvironmentLayer(prefix: "PROBE", variables: [Self.deepVariable: "1", "PROBE_PORT": "80"])
      .load(LoadContext(declaredKeys: ["port"]))
    let root = try #require(contents.documents.first?.root)
    #expect(root.value(at: "port")?.kind == .string("80"))
    #expect(root.table?.count == 1)
    let error = try #require(contents.diagnostics.first { $0.error.code == .nestingTooDeep }?.error)
    #expect(error.path?.hasPrefix("env:PROBE_A__A__") == true)
    #expect(error.message.contains("limit of 512"))
  }

  @Test func aVariableAtTheDepthLimitIsKept() throws {
    var options = ParseOptions()
    options.maxDepth = 3
    let variables = ["P_A__B__C": "1", "P_A__B__C__D": "2"]
    let contents = EnvironmentLayer(prefix: "P", variables: variables).load(LoadContext(options: options))
    let root = try #require(contents.documents.first?.root)
    #expect(root.value(at: "a.b.c")?.kind == .string("1"))
    #expect(root.value(at: "a.b.c.d") == nil)
    #expect(
      contents.diagnostics.filter { $0.error.code == .nestingTooDeep }.map(\.error.path) == [
        "env:P_A__B__C__D"
      ])
  }

  @Test func aDeepOptionIsIgnoredAndTheOthersApply() throws {
    let layer = CommandLineLayer(arguments: [Self.deepOption, "1", "--port", "9"])
    let contents = layer.load(LoadContext())
    let root = try #require(contents.documents.first?.root)
    #expect(root.value(at: "port")?.kind == .string("9"))
    #expect(root.table?.count == 1)
    let error = try #require(contents.diagnostics.first { $0.error.code == .nestingTooDeep }?.error)
    #expect(error.message.hasPrefix("option '--a.a.a."))
    #expect(error.message.contains("(argument 1) names a key 20000 levels deep"))
    #expect(error.message.contains("ParseOptions.maxDepth"))
    #expect(error.message.utf8.count < 400)
  }

  @Test func aStoreStartsWithADeepOptionAndADeepVariable() throws {
    try withTemporaryDirectory { dir in
      let store = SettingsStore(
        app: "probe", root: dir, environment: [Self.deepVariable: "1"],
        arguments: [Self.deepOption, "1", "--server.port", "9000"])
      let server = FlagSettings(store: store)
      #expect(server.port == 9000)
      let deep = store.snapshot.diagnostics.filter { $0.error.code == .nestingTooDeep }
      #expect(deep.count == 2)
    }
  }

  @Test func optionsPastTheValueLimitAreIgnoredWithOneError() throws {
    var options = ParseOptions()
    options.maxValues = 2
    let contents = CommandLineLayer(arguments: ["--a", "1", "--b", "2", "--c", "3", "--d", "4"]).load(
      LoadContext(options: options))
    let root = try #require(contents.documents.first?.root)
    #expect(root.table?.keys == ["a", "b"])
    let errors = contents.diagnostics.map(\.error)
    #expect(errors.map(\.code) == [.tooManyValues])
    #expect(
      errors.first?.message.hasPrefix("option '--c' (argument 5) is past the limit of 2 values") == true)
  }

  @Test func variablesPastTheSizeLimitAreIgnoredWithOneError() throws {
    var options = ParseOptions()
    options.maxFileSize = 20
    let variables = ["P_A": "12345", "P_B": "12345", "P_C": "1", "P_D": "2"]
    let contents = EnvironmentLayer(prefix: "P", variables: variables).load(LoadContext(options: options))
    let root = try #require(contents.documents.first?.root)
    // P_A and P_B are 16 bytes; P_C brings it to 20, P_D past it.
    #expect(root.table?.keys == ["a", "b", "c"])
    let errors = contents.diagnostics.map(\.error).filter { $0.code == .fileTooLarge }
    #expect(errors.map(\.path) == ["env:P_D"])
    #expect(errors.first?.message.contains("limit of 20 bytes (ParseOptions.maxFileSize)") == true)
  }

  @Test func aWriteToAKeyDeeperThanTheLimitIsRefused() throws {
    try withTemporaryDirectory { dir in
      let key = Array(repeating: "a", count: 20_000).joined(separator: ".")
      let value = SettingValue(.string("x"), origin: .runtime)
      let store = SettingsStore(layers: [], writeTarget: .file(dir + "/app.json"))
      let error = #expect(throws: StrataError.self) { try store.write(value, forKey: key) }
      #expect(error?.code == .nestingTooDeep)
      #expect(error?.message.contains("20000 names deep, deeper than the limit of 512") == true)
      #expect(throws: StrataError.self) { try SettingsStore(layers: []).setRuntimeValue(value, forKey: key) }
      #expect(!FileManager.default.fileExists(atPath: dir + "/app.json"))
    }
  }

  @Test func aVariableOfManyWordsStillMapsAndTheOthersToo() throws {
    let long = "P_" + Array(repeating: "A", count: 100_000).joined(separator: "_")
    let lower = Document(
      path: "f.json",
      root: SettingValue(
        .table(
          SettingTable([
            (
              "a",
              SettingValue(
                .table(SettingTable([("b", .init(.integer(1), origin: .codeDefault))])), origin: .codeDefault)
            )
          ])),
        origin: .codeDefault))
    let contents = EnvironmentLayer(prefix: "P", variables: [long: "1", "P_A_B": "2"]).load(
      LoadContext(lowerDocuments: [lower]))
    let root = try #require(contents.documents.first?.root)
    #expect(root.value(at: "a.b")?.kind == .string("2"))
    let unknown = try #require(contents.diagnostics.first { $0.error.code == .unknownKey }?.error)
    #expect(unknown.message.hasPrefix("environment variable P_A_A_A_"))
    #expect(unknown.message.utf8.count < 400)
    #expect(root.table?.count == 2)
  }

  @Test func aLongNameIsShortenedInMessages() {
    #expect(InputLimits.shortened("short") == "short")
    let long = String(repeating: "x", count: 100)
    #expect(InputLimits.shortened(long) == String(repeating: "x", count: 60) + "…")
  }
}
