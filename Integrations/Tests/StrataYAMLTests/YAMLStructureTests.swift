import Strata
import StrataYAML
import Testing

/// Keys, anchors, merge keys, documents, positions and limits.
@Suite struct YAMLStructureTests {
  @Test func positionsAreLinesAndByteColumns() throws {
    let document = try parseYAML(
      "# comment\nserver:\n  host: \"é.example\"  # é\n  port: 8080\nlist: [a, b]\nnote: é é x\n")
    #expect(document.position("server.host") == "3:9")
    #expect(document.position("server.port") == "4:9")
    #expect(document.position("list") == "5:7")
    #expect(document.position("note") == "6:7")
    // A column counts bytes: "é" is two.
    let wide = try parseYAML("k: {é: é, b: 1}\n")
    #expect(wide.position("k.b") == "1:16")
  }

  @Test func duplicateKeysNameBothPositions() {
    let error = yamlError("server:\n  port: 1\n  host: x\n  port: 2\n")
    #expect(error?.code == .duplicateKey)
    #expect(error?.location == "/etc/demo/demo.yaml:4:3")
    #expect(error?.message.contains("first at /etc/demo/demo.yaml:2:3") == true)
    let flow = yamlError("a: {x: 1, y: 2, x: 3}\n")
    #expect(flow?.code == .duplicateKey)
    #expect(flow?.location == "/etc/demo/demo.yaml:1:17")
    #expect(flow?.message.contains("1:5") == true)
    let quoted = yamlError("a: 1\n\"a\": 2\n")
    #expect(quoted?.location == "/etc/demo/demo.yaml:2:1")
  }

  @Test(arguments: [
    ("1: one\n", "1:1"), ("true: x\n", "1:1"), ("~: x\n", "1:1"), ("a: 1\n1.5: x\n", "2:1"),
    ("a:\n  ?\n    - b\n  : c\n", "2:3"), ("a:\n  ? [b]\n  : c\n", "2:3"), ("&k a: 1\n*k : 2\n", "2:1"),
    ("[a, b]: 1\n", "1:6"),
    ("{a: 1}: 2\n", "1:6"),
  ])
  func keysMustBeStrings(text: String, position: String) {
    let error = yamlError(text)
    #expect(error?.code == .typeMismatch)
    #expect(error?.location == "/etc/demo/demo.yaml:\(position)")
  }

  @Test func quotedKeysThatLookLikeOtherTypesAreNames() throws {
    let document = try parseYAML("\"1\": one\n'true': t\na.b: dotted\n? explicit\n: e\n? \"quoted\"\n: q\n")
    #expect(document.root.table?.map(\.key) == ["1", "true", "a.b", "explicit", "quoted"])
  }

  @Test func aKeyLongerThanLibyamlWritesPlainRoundTrips() throws {
    let key = String(repeating: "k", count: 200)
    let document = try parseYAML("\(key): 1\n")
    let written = try YAMLFormat().serialize(document.root)
    #expect(String(decoding: written, as: UTF8.self).hasPrefix("? "))
    #expect(
      try YAMLFormat().parse(written, path: "again.yaml", options: ParseOptions()).root == document.root)
  }

  @Test func anchorsAliasesAndMergeKeys() throws {
    let text = """
      base: &base
        host: db.local
        port: 5432
        pool: {min: 1}
      extra: &extra
        port: 1
        tls: true
      primary:
        <<: *base
        port: 6432
      replica:
        <<: [*extra, *base]
        name: r
      copy: *base
      literal:
        "<<": kept

      """
    let document = try parseYAML(text)
    #expect(document.kind("primary.port") == .integer(6432))
    #expect(document.kind("primary.host") == .string("db.local"))
    #expect(document.root.value(at: "primary")?.table?.map(\.key) == ["host", "pool", "port"])
    // In a list, the earlier mapping wins.
    #expect(document.kind("replica.port") == .integer(1))
    #expect(document.kind("replica.host") == .string("db.local"))
    #expect(document.kind("replica.tls") == .bool(true))
    #expect(document.kind("copy.pool.min") == .integer(1))
    #expect(document.root.value(at: "literal")?.table?.map(\.key) == ["<<"])
    #expect(yamlError("a: &a 1\nb:\n  <<: *a\n")?.code == .typeMismatch)
  }

  @Test func aBillionLaughsIsRefused() {
    var lines = ["l0: &l0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
    for level in 1...9 {
      let aliases = Array(repeating: "*l\(level - 1)", count: 9).joined(separator: ", ")
      lines.append("l\(level): &l\(level) [\(aliases)]")
    }
    let error = yamlError(lines.joined(separator: "\n") + "\n")
    #expect(error?.code == .tooManyValues)
    #expect(error?.message.contains("aliases") == true)
    var small = ParseOptions()
    small.maxValues = 50
    #expect(
      yamlError("a: &a [1, 2, 3, 4, 5]\nb: [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\n", options: small)?.code
        == .tooManyValues)
  }

  @Test func anAliasKeyOfABillionLaughsIsRefusedBeforeLibyamlHashesIt() {
    var lines = ["l0: &l0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
    for level in 1...20 {
      let aliases = Array(repeating: "*l\(level - 1)", count: 9).joined(separator: ", ")
      lines.append("l\(level): &l\(level) [\(aliases)]")
    }
    lines.append("? *l20\n: boom")
    #expect(yamlError(lines.joined(separator: "\n") + "\n")?.code == .typeMismatch)
    lines[lines.count - 1] = "*l20 : boom"
    #expect(yamlError(lines.joined(separator: "\n") + "\n")?.code == .typeMismatch)
    lines[lines.count - 1] = "x: {*l20 : boom}"
    #expect(yamlError(lines.joined(separator: "\n") + "\n")?.code == .typeMismatch)
    lines[lines.count - 1] = "[*l20]: boom"
    #expect(yamlError(lines.joined(separator: "\n") + "\n")?.code == .typeMismatch)
  }

  @Test func aSecondDocumentIsRefusedAtItsStart() throws {
    let error = yamlError("a: 1\n---\nb: 2\n")
    #expect(error?.code == .syntax)
    #expect(error?.location == "/etc/demo/demo.yaml:2:1")
    #expect(error?.message.contains("second YAML document") == true)
    // One document with its markers is one document.
    #expect(try parseYAML("%YAML 1.2\n---\na: 1\n...\n").kind("a") == .integer(1))
  }

  @Test func theTopLevelIsAMapping() throws {
    #expect(yamlError("- a\n- b\n")?.code == .typeMismatch)
    #expect(yamlError("just text\n")?.code == .typeMismatch)
    #expect(try parseYAML("").root.table?.isEmpty == true)
    #expect(try parseYAML("# only a comment\n").root.table?.isEmpty == true)
    #expect(try parseYAML("~\n").root.table?.isEmpty == true)
  }

  @Test func syntaxErrorsSayWhere() {
    let error = yamlError("a: 1\nb: [1, 2\nc: 3\n")
    #expect(error?.code == .syntax)
    #expect(error?.location?.hasPrefix("/etc/demo/demo.yaml:") == true)
    // libyaml's context is given in bytes too: "é" is one scalar and two bytes.
    let context = yamlError("é: [1, 2\n")
    #expect(
      context?.message.hasSuffix("(while parsing a flow sequence at 1:5)") == true,
      "\(String(describing: context))")
    let tab = yamlError("a:\n\tb: 1\n")
    #expect(tab?.code == .syntax)
    #expect(tab?.location == "/etc/demo/demo.yaml:2:1")
    let bytes: [UInt8] = Array("a: 1\nb: ".utf8) + [0xFF, 0x0A]
    #expect(throws: StrataError.self) {
      try YAMLFormat().parse(bytes, path: "x.yaml", options: ParseOptions())
    }
    do {
      _ = try YAMLFormat().parse(bytes, path: "x.yaml", options: ParseOptions())
    } catch {
      #expect(error.code == .invalidUTF8)
      #expect(error.location == "x.yaml:2:4")
    }
  }

  @Test func deepNestingIsRefusedBeforeLibyamlRecurses() async throws {
    let flow = String(repeating: "[", count: 100_000)
    #expect(yamlError("a: \(flow)\n")?.code == .nestingTooDeep)
    let block = String(repeating: "- ", count: 100_000) + "x\n"
    #expect(yamlError("a:\n" + block)?.code == .nestingTooDeep)
    var lines: [String] = []
    for level in 0..<600 { lines.append(String(repeating: " ", count: level) + "k\(level):") }
    #expect(yamlError(lines.joined(separator: "\n") + " 1\n")?.code == .nestingTooDeep)
    // A long flow mapping or sequence on one line is one level, however many entries it has.
    let wide = "k: {" + (0..<2000).map { "x\($0): [\($0), a: b]" }.joined(separator: ", ") + "}\n"
    #expect(try parseYAML(wide).root.value(at: "k")?.table?.count == 2000)
    // Up to the limit, a document parses, on a task's thread too.
    let nested = "a: " + String(repeating: "[", count: 400) + String(repeating: "]", count: 400) + "\n"
    let parsed = await Task.detached { try? parseYAML(nested) }.value
    #expect(parsed != nil)
  }

  @Test func aLargeFileIsRefused() {
    var options = ParseOptions()
    options.maxFileSize = 10
    #expect(yamlError("a: 1234567890\n", options: options)?.code == .fileTooLarge)
  }

  @Test func serializeThenParseGivesTheSameTree() throws {
    let text = """
      server:
        host: example.com
        port: 8080
        flags: ["yes", "on", "true", "8080", "", "~", "<<", "a: b", "# x", "multi\\nline"]
        ratio: 0.25
        big: 18446744073709551615
        nested: {empty: {}, list: [[1, 2], []]}

      """
    let document = try parseYAML(text)
    let written = try YAMLFormat().serialize(document.root)
    let again = try YAMLFormat().parse(written, path: "again.yaml", options: ParseOptions())
    #expect(again.root == document.root, "\(String(decoding: written, as: UTF8.self))")
  }
}
