import Testing

@testable import Strata

/// The command-line layer splits its arguments once and keeps its reading while the declarations it
/// depends on stay the same; building it from many options gives every option.
@Suite struct CommandLineReadingTests {
  func context(_ declared: DeclaredKeys) -> LoadContext {
    var context = LoadContext()
    context.declared = declared
    return context
  }

  @Test func aHundredThousandOptionsAllArrive() async throws {
    // Seconds in a debug build: on a thread of its own, not the cooperative pool's.
    let contents = await onOwnThread {
      var arguments: [String] = []
      for index in 0..<100_000 {
        arguments += ["--group\(index % 1000).key\(index)", "\(index)"]
      }
      arguments.append("--group7.flag")
      return CommandLineLayer(arguments: arguments).load(LoadContext())
    }
    let root = try #require(contents.documents.first?.root)
    #expect(root.table?.count == 1000)
    #expect(root.value(at: "group999.key99999")?.kind == .string("99999"))
    #expect(root.value(at: "group0.key0")?.origin == .commandLine(option: "--group0.key0"))
    #expect(root.value(at: "group7.flag")?.kind == .string("true"))
    #expect(root.value(at: "group3")?.table?.count == 100)
    #expect(root.value(at: "group3")?.table?.keys.first == "key3")
    #expect(contents.diagnostics.isEmpty)
  }

  @Test func aReadingIsKeptWhileItsDeclarationsAnswerTheSame() throws {
    let layer = CommandLineLayer(arguments: ["--server.port", "1", "--debug", "input.txt"])
    var declared = DeclaredKeys()
    let first = try #require(layer.load(context(declared)).documents.first?.root.table)
    #expect(first["debug"]?.kind == .string("input.txt"))
    // A key the options do not depend on: the same document, not a new one.
    declared.add("server.port")
    let second = try #require(layer.load(context(declared)).documents.first?.root.table)
    #expect(second.sharesStorage(with: first))
    // `debug` becomes a Bool: the bare flag, and `input.txt` is the program's.
    declared.add("debug", isFlag: true)
    let third = try #require(layer.load(context(declared)).documents.first?.root.table)
    #expect(third["debug"]?.kind == .string("true"))
    #expect(!third.sharesStorage(with: first))
  }

  @Test func aRepeatedOptionBecomesTheLastValueOnceItsSettingIsDeclared() throws {
    let layer = CommandLineLayer(arguments: ["--port", "1", "--port", "2"])
    var declared = DeclaredKeys()
    let before = try #require(layer.load(context(declared)).documents.first?.root)
    #expect(before.value(at: "port")?.typeName == "array")
    declared.add("port")
    let after = try #require(layer.load(context(declared)).documents.first?.root)
    #expect(after.value(at: "port")?.kind == .string("2"))
  }

  @Test func changedArgumentsAreReadAgain() throws {
    var layer = CommandLineLayer(arguments: ["--a", "1"])
    #expect(layer.load(LoadContext()).documents.first?.root.value(at: "a")?.kind == .string("1"))
    let copy = layer
    layer.arguments = ["--a", "2"]
    #expect(layer.load(LoadContext()).documents.first?.root.value(at: "a")?.kind == .string("2"))
    #expect(copy.load(LoadContext()).documents.first?.root.value(at: "a")?.kind == .string("1"))
  }

  @Test func otherLimitsReadAgain() throws {
    let layer = CommandLineLayer(arguments: ["--a.b.c", "1"])
    #expect(layer.load(LoadContext()).documents.first?.root.value(at: "a.b.c") != nil)
    var options = ParseOptions()
    options.maxDepth = 2
    let limited = layer.load(LoadContext(options: options))
    #expect(limited.documents.first?.root.value(at: "a.b.c") == nil)
    #expect(limited.diagnostics.map(\.error.code) == [.nestingTooDeep])
  }

  @Test func aKeyBothValueAndTableTakesTheLaterKey() throws {
    let tableLast = CommandLineLayer(arguments: ["--a", "1", "--a.b", "2"]).load(LoadContext())
    #expect(tableLast.documents.first?.root.value(at: "a.b")?.kind == .string("2"))
    let valueLast = CommandLineLayer(arguments: ["--a.b", "2", "--a", "1"]).load(LoadContext())
    #expect(valueLast.documents.first?.root.value(at: "a")?.kind == .string("1"))
  }
}
