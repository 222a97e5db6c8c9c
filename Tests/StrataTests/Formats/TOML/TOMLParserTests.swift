import Foundation
import Testing

@testable import Strata

/// Parses `text` as `/etc/demo/demo.toml`.
func parseTOML(_ text: String, options: ParseOptions = ParseOptions()) throws(StrataError) -> SettingValue {
  try TOMLFormat().parse(Array(text.utf8), path: "/etc/demo/demo.toml", options: options).root
}

/// The error parsing `text` throws, or `nil` when it parses.
func tomlError(_ text: String, options: ParseOptions = ParseOptions()) -> StrataError? {
  do {
    _ = try parseTOML(text, options: options)
    return nil
  } catch {
    return error
  }
}

@Suite struct TOMLParserTests {
  @Test func everyValueKeepsItsLineAndColumn() throws {
    let root = try parseTOML(
      """
      # server settings
      name = "demo"
      [server]
        port = 8080
      limits = { cpu = 2, tags = ["a", "b"] }
      [[backends]]
      host = 'one'

      """)
    #expect(root.value(at: "name")?.origin == .file(path: "/etc/demo/demo.toml", line: 2, column: 8))
    #expect(root.value(at: "server")?.origin == .file(path: "/etc/demo/demo.toml", line: 3, column: 1))
    #expect(root.value(at: "server.port")?.origin == .file(path: "/etc/demo/demo.toml", line: 4, column: 10))
    #expect(
      root.value(at: "server.limits.cpu")?.origin == .file(path: "/etc/demo/demo.toml", line: 5, column: 18))
    guard case .array(let tags)? = root.value(at: "server.limits.tags")?.kind,
      case .array(let backends)? = root.value(at: "backends")?.kind
    else {
      Issue.record("tags or backends is not an array")
      return
    }
    #expect(tags.last?.origin == .file(path: "/etc/demo/demo.toml", line: 5, column: 34))
    #expect(
      backends.first?.value(at: "host")?.origin == .file(path: "/etc/demo/demo.toml", line: 7, column: 8))
  }

  @Test func scalarsMapToTheirKinds() throws {
    let root = try parseTOML(
      """
      s = "tab\\there \\u00E9 \\U0001F600"
      i = -9_223_372_036_854_775_808
      h = 0xdead_BEEF
      o = 0o755
      b = 0b1101
      f = 6.02e+23
      ninf = -inf
      n = nan
      yes = true
      """)
    #expect(root.value(at: "s")?.kind == .string("tab\there é 😀"))
    #expect(root.value(at: "i")?.kind == .integer(Int.min))
    #expect(root.value(at: "h")?.kind == .integer(0xDEAD_BEEF))
    #expect(root.value(at: "o")?.kind == .integer(0o755))
    #expect(root.value(at: "b")?.kind == .integer(13))
    #expect(root.value(at: "f")?.kind == .double(6.02e23))
    #expect(root.value(at: "ninf")?.kind == .double(-.infinity))
    guard case .double(let nan)? = root.value(at: "n")?.kind else {
      Issue.record("nan is not a double")
      return
    }
    #expect(nan.isNaN)
    #expect(root.value(at: "yes")?.kind == .bool(true))
  }

  @Test func offsetDateTimesAreInstantsAndLocalOnesStayISOText() throws {
    let root = try parseTOML(
      """
      odt = 1979-05-27T00:32:00.5-07:00
      ldt = 1979-05-27 07:32:00
      ld = 1979-05-27
      lt = 07:32:00.999999
      """)
    guard case .date(let date)? = root.value(at: "odt")?.kind else {
      Issue.record("an offset date-time is not a date")
      return
    }
    #expect(date.timeIntervalSince1970 == 296_638_320.5)
    #expect(root.value(at: "ldt")?.kind == .string("1979-05-27T07:32:00"))
    #expect(root.value(at: "ld")?.kind == .string("1979-05-27"))
    #expect(root.value(at: "lt")?.kind == .string("07:32:00.999999"))
  }

  @Test func aQuotedKeyWithADotStaysOneNameAndDottedKeysMakeTables() throws {
    let root = try parseTOML("\"a.b\" = 1\nx . \"y z\" . 'w' = 2\n")
    #expect(root.table?["a.b"]?.kind == .integer(1))
    #expect(root.value(atComponents: ["x", "y z", "w"])?.kind == .integer(2))
  }

  @Test func multiLineStringsTrimTheFirstLineBreakAndJoinEscapedLineEnds() throws {
    let root = try parseTOML(
      "a = \"\"\"\nRoses \\\n    are red\"\"\"\nb = '''\nC:\\x\n'''\nc = \"\"\"\"two\"\"\"\"\"\n")
    #expect(root.value(at: "a")?.kind == .string("Roses are red"))
    #expect(root.value(at: "b")?.kind == .string("C:\\x\n"))
    #expect(root.value(at: "c")?.kind == .string("\"two\"\""))
  }

  @Test func arraysOfTablesAndSubtablesOfTheirLastElement() throws {
    let root = try parseTOML(
      """
      [[fruit]]
      name = "apple"
      [fruit.physical]
      color = "red"
      [[fruit]]
      name = "banana"
      """)
    guard case .array(let fruit)? = root.value(at: "fruit")?.kind else {
      Issue.record("fruit is not an array")
      return
    }
    #expect(fruit.count == 2)
    #expect(fruit[0].value(at: "physical.color")?.kind == .string("red"))
    #expect(fruit[1].value(at: "name")?.kind == .string("banana"))
  }

  @Test(arguments: [
    ("a = 1\na = 2\n", 2, 1, "set twice (first at line 1)"),
    ("[a]\n[a]\n", 2, 1, "defined twice (first at line 1)"),
    ("a = {x = 1}\n[a]\n", 2, 1, "already set to an inline table"),
    ("a = {x = 1}\na.y = 2\n", 2, 1, "an inline table is complete"),
    ("[a.b]\nc = 1\n[a]\nb.d = 2\n", 4, 1, "which is complete"),
    ("[x]\na.b = 1\n[x.a]\n", 3, 1, "already made by dotted keys"),
    ("a = []\n[[a]]\n", 2, 1, "cannot be extended"),
    ("[[a]]\n[a]\n", 2, 1, "names an array of tables"),
    ("[a]\n[[a]]\n", 2, 1, "not an array of tables"),
    ("t = {a = 1, a = 2}\n", 1, 13, "set twice"),
  ])
  func redefinitionsAreRefusedWhereTheSecondDefinitionIs(
    text: String, line: Int, column: Int, message: String
  ) throws {
    let error = try #require(tomlError(text))
    #expect(error.line == line && error.column == column, "\(error)")
    #expect(error.message.contains(message), "\(error)")
    #expect(error.path == "/etc/demo/demo.toml")
  }

  @Test func aTableMadeByDottedKeysTakesSubtablesFromHeaders() throws {
    let root = try parseTOML("[fruit]\napple.color = \"red\"\n[fruit.apple.texture]\nsmooth = true\n")
    #expect(root.value(at: "fruit.apple.texture.smooth")?.kind == .bool(true))
  }

  @Test(arguments: [
    ("a = 9223372036854775808\n", 1, 5, "does not fit in 64 bits"),
    ("a = 0x8000000000000000\n", 1, 5, "does not fit in 64 bits"),
    ("a = 012\n", 1, 5, "cannot start with a zero"),
    ("a = 1__2\n", 1, 5, "underscore"),
    ("a = +0x12\n", 1, 5, "takes no sign"),
    ("a = 1.\n", 1, 5, "digits after its '.'"),
    ("a = \"\\x41\"\n", 1, 6, "invalid escape"),
    ("a = \"\\uD800\"\n", 1, 6, "not a Unicode scalar value"),
    ("a = \"\\u12\"\n", 1, 6, "exactly 4 hexadecimal digits"),
    ("a = \"open\nb = 1\n", 1, 10, "unterminated string"),
    ("a = 2021-02-29\n", 1, 5, "no day 29 of month 2"),
    ("a = 24:00:00\n", 1, 5, "hour above 23"),
    ("a = 1979-05-27T07:32\n", 1, 5, "seconds included"),
    ("a = yes\n", 1, 5, "strings are quoted"),
    ("a = 1 b = 2\n", 1, 7, "on its own line"),
    ("t = {a = 1,}\n", 1, 12, "cannot end with ','"),
    ("t = {a = 1,\nb = 2}\n", 1, 12, "on one line"),
    ("a = [1 2]\n", 1, 8, "expected ',' or ']'"),
    ("a = 1\r\n b = 2\rc = 3\n", 2, 7, "carriage return"),
    ("# bad \u{01} comment\n", 1, 7, "control character U+0001"),
    ("= 1\n", 1, 1, "expected a key"),
    ("[a\n", 1, 3, "expected ']'"),
    ("a.\"\"\"b\"\"\" = 1\n", 1, 3, "cannot be a multi-line string"),
  ])
  func errorsSayWhereAndWhat(text: String, line: Int, column: Int, message: String) throws {
    let error = try #require(tomlError(text))
    #expect(error.line == line && error.column == column, "\(error)")
    #expect(error.message.contains(message), "\(error)")
  }

  @Test func aFileThatIsNotUTF8IsRefusedAtTheBadByte() throws {
    var bytes = Array("a = 1\nb = \"x".utf8)
    bytes += [0xC3, 0x28, 0x22, 0x0A]
    #expect(throws: StrataError.self) {
      _ = try TOMLFormat().parse(bytes, path: "/x.toml", options: ParseOptions())
    }
    do {
      _ = try TOMLFormat().parse(bytes, path: "/x.toml", options: ParseOptions())
    } catch {
      #expect(error.code == .invalidUTF8 && error.line == 2 && error.column == 7)
    }
  }

  @Test func aByteOrderMarkIsSkippedAndColumnsStartAfterIt() throws {
    let root = try TOMLFormat().parse(
      [0xEF, 0xBB, 0xBF] + Array("a = 1\n".utf8), path: "/x.toml", options: ParseOptions()
    )
    .root
    #expect(root.value(at: "a")?.origin == .file(path: "/x.toml", line: 1, column: 5))
  }

  @Test func nestingPastMaxDepthIsRefusedWithTheLimitNamed() throws {
    let deepArray = "a = " + String(repeating: "[", count: 100_000) + "\n"
    let arrayError = try #require(tomlError(deepArray))
    #expect(arrayError.code == .nestingTooDeep && arrayError.message.contains("ParseOptions.maxDepth"))
    let deepInline = "a = " + String(repeating: "{b = ", count: 20) + "1" + String(repeating: "}", count: 20)
    let inlineError = try #require(tomlError(deepInline, options: ParseOptions(maxDepth: 10)))
    #expect(inlineError.code == .nestingTooDeep)
    let deepHeader = "[" + Array(repeating: "k", count: 600).joined(separator: ".") + "]\n"
    #expect(tomlError(deepHeader)?.code == .nestingTooDeep)
    let deepDotted = Array(repeating: "k", count: 20).joined(separator: ".") + " = 1\n"
    #expect(tomlError(deepDotted, options: ParseOptions(maxDepth: 10))?.code == .nestingTooDeep)
    #expect(tomlError(deepDotted, options: ParseOptions(maxDepth: 30)) == nil)
  }

  @Test func valuesPastMaxValuesAndFilesPastMaxFileSizeAreRefused() throws {
    let many = (0..<50).map { "k\($0) = [1, 2, 3]" }.joined(separator: "\n")
    let tooMany = try #require(tomlError(many, options: ParseOptions(maxValues: 100)))
    #expect(
      tooMany.code == .tooManyValues && tooMany.message.contains("ParseOptions.maxValues") && tooMany.line > 0
    )
    #expect(tomlError(many, options: ParseOptions(maxValues: 1000)) == nil)
    let tooLarge = try #require(tomlError(many, options: ParseOptions(maxFileSize: 64)))
    #expect(tooLarge.code == .fileTooLarge && tooLarge.message.contains("ParseOptions.maxFileSize"))
  }

  @Test func theStandardRegistryReadsTOMLFiles() {
    #expect(FormatRegistry.standard.format(forPath: "/etc/demo/demo.toml") is TOMLFormat)
    #expect(FormatRegistry.standard.format(named: "toml") is TOMLFormat)
    #expect(FormatRegistry.standard.mainFileExtensions.last == "toml")
  }
}
