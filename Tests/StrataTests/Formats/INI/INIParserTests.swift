import Foundation
import Testing

@testable import Strata

/// The string at a dotted path, or `nil`.
func iniString(_ document: Document, _ key: String) -> String? {
  if case .string(let s)? = document.root.value(at: key)?.kind { return s }
  return nil
}

/// The `line:column` of the node at a dotted path.
func iniPosition(_ document: Document, _ key: String) -> String? {
  guard case .file(_, let line, let column)? = document.root.value(at: key)?.origin else { return nil }
  return "\(line):\(column)"
}

/// `code line:column` of the error a parse throws.
func iniFailure(_ text: String) -> String? {
  guard let error = parseError(text, as: INIFormat()) else { return nil }
  return "\(error.code) \(error.line):\(error.column)"
}

@Suite("INI parser")
struct INIParserTests {
  let ini = INIFormat()

  @Test func sectionsKeysAndTopLevel() throws {
    let doc = try parse(
      "top = 1\n[server]\nport = 8080\nhost: example.org\n[server.tls]\ncert = /c.pem\n", as: ini)
    #expect(iniString(doc, "top") == "1")
    #expect(iniString(doc, "server.port") == "8080")
    #expect(iniString(doc, "server.host") == "example.org")
    #expect(iniString(doc, "server.tls.cert") == "/c.pem")
    #expect(doc.root.table?.keys == ["top", "server"])
    #expect(doc.diagnostics.isEmpty)
  }

  @Test func firstDelimiterSplitsAndKeysKeepInnerSpaces() throws {
    let doc = try parse("[global]\n   server string = Samba = %h: ok\nurl: http://x:80/=y\n", as: ini)
    #expect(iniString(doc, "global.server string") == "Samba = %h: ok")
    #expect(iniString(doc, "global.url") == "http://x:80/=y")
  }

  @Test func keysAreCaseSensitive() throws {
    let doc = try parse("Key = a\nkey = b\n", as: ini)
    #expect(iniString(doc, "Key") == "a")
    #expect(iniString(doc, "key") == "b")
    #expect(doc.diagnostics.isEmpty)
  }

  @Test func gitSubsections() throws {
    let text =
      "[remote \"origin\"]\n\turl = git@h:x.git\n[branch \"feature/a.b c\"]\n\tmerge = x\n"
      + "[sec \"q\\\"u\\\\o\"]\nk = v\n"
    let doc = try parse(text, as: ini)
    #expect(iniString(doc, "remote.origin.url") == "git@h:x.git")
    #expect(doc.root.value(atComponents: ["branch", "feature/a.b c", "merge"]) != nil)
    #expect(doc.root.value(atComponents: ["sec", "q\"u\\o", "k"]) != nil)
  }

  @Test func dottedSectionsAndKeysNest() throws {
    let doc = try parse("[a.b]\nc.d = 1\n[a]\nx = 2\n[ spaced . name ]\nk = 3\n", as: ini)
    #expect(iniString(doc, "a.b.c.d") == "1")
    #expect(iniString(doc, "a.x") == "2")
    #expect(iniString(doc, "spaced.name.k") == "3")
    #expect(doc.root.value(at: "a")?.table?.keys == ["b", "x"])
  }

  @Test func quotedKeysDoNotNest() throws {
    let doc = try parse("\"a.b=c\" = 1\nx.\"y.z\" = 2\n\"arr\"[] = 3\n", as: ini)
    #expect(doc.root.value(atComponents: ["a.b=c"]) == SettingValue(.string("1"), origin: .runtime))
    #expect(doc.root.value(atComponents: ["x", "y.z"]) == SettingValue(.string("2"), origin: .runtime))
    #expect(doc.root.value(at: "arr")?.kind == .array([SettingValue(.string("3"), origin: .runtime)]))
  }

  @Test func comments() throws {
    let text =
      "# full\n; full\n  # indented\n[s] ; after header\na = b # c\nd = e;f\ng = h ;i\n"
      + "j = \"k # l\" # m\nn = 'o ; p' ; q\nr =#s\nt = # only a comment\n"
    let doc = try parse(text, as: ini)
    #expect(iniString(doc, "s.a") == "b")
    #expect(iniString(doc, "s.d") == "e;f")
    #expect(iniString(doc, "s.g") == "h")
    #expect(iniString(doc, "s.j") == "k # l")
    #expect(iniString(doc, "s.n") == "o ; p")
    #expect(iniString(doc, "s.r") == "#s")
    #expect(iniString(doc, "s.t") == "")
  }

  @Test func quotedValuesAndEscapes() throws {
    let text =
      #"a = "x\"y\\z\n\t\r""# + "\n" + #"b = "\u00e9\u20AC\uD83D\uDE00""# + "\n"
      + "c = 'raw \\n \"q\"'\nd = \"\"\ne = ''\nf =   \"  spaced  \"  \n"
    let doc = try parse(text, as: ini)
    #expect(iniString(doc, "a") == "x\"y\\z\n\t\r")
    #expect(iniString(doc, "b") == "é€😀")
    #expect(iniString(doc, "c") == "raw \\n \"q\"")
    #expect(iniString(doc, "d") == "")
    #expect(iniString(doc, "e") == "")
    #expect(iniString(doc, "f") == "  spaced  ")
  }

  @Test func unquotedValuesAreTrimmedAndMayBeEmpty() throws {
    let doc = try parse("a =   spaced value  \t\nb =\nc:\nd = mid \"quotes\" stay\n", as: ini)
    #expect(iniString(doc, "a") == "spaced value")
    #expect(iniString(doc, "b") == "")
    #expect(iniString(doc, "c") == "")
    #expect(iniString(doc, "d") == "mid \"quotes\" stay")
  }

  @Test func lineContinuation() throws {
    let text = "a = one \\\n    two \\\n\tthree # c\nb = x\nq = \"multi \\\n   line\"\nc = end\\\n\nd = 1\n"
    let doc = try parse(text, as: ini)
    #expect(iniString(doc, "a") == "one two three")
    #expect(iniString(doc, "b") == "x")
    #expect(iniString(doc, "q") == "multi line")
    // Before a blank line the `\` continues nothing: it stays in the value, with a warning.
    #expect(iniString(doc, "c") == "end\\")
    #expect(doc.diagnostics.map { "\($0.error.line):\($0.error.column)" } == ["7:8"])
    #expect(iniPosition(doc, "b") == "4:5")
    #expect(iniPosition(doc, "d") == "9:5")
  }

  @Test func arrays() throws {
    let doc = try parse("[s]\nk[] = a\nk[] = \"b c\"\nother = 1\nk [] = d\n", as: ini)
    let strings = ["a", "b c", "d"].map { SettingValue(.string($0), origin: .runtime) }
    #expect(doc.root.value(at: "s.k")?.kind == .array(strings))
    #expect(iniPosition(doc, "s.k") == "2:1")
    #expect(doc.root.value(at: "s")?.table?.keys == ["k", "other"])
  }

  @Test func flags() throws {
    let doc = try parse(
      "[mysqldump]\nquick\nquote-names # c\nmax_allowed_packet\t= 16M\npip wheel .\n", as: ini)
    #expect(iniString(doc, "mysqldump.quick") == "true")
    #expect(iniString(doc, "mysqldump.quote-names") == "true")
    #expect(iniString(doc, "mysqldump.max_allowed_packet") == "16M")
    #expect(doc.root.value(atComponents: ["mysqldump", "pip wheel ."]) != nil)
    #expect(iniPosition(doc, "mysqldump.quick") == "2:1")
  }

  @Test func duplicatesWarnAndLastWins() throws {
    let doc = try parse("[s]\na = 1\nb = 2\na = 3\n[s]\nb = 4\n", as: ini)
    #expect(iniString(doc, "s.a") == "3")
    #expect(iniString(doc, "s.b") == "4")
    #expect(doc.root.value(at: "s")?.table?.keys == ["a", "b"])
    #expect(doc.diagnostics.count == 2)
    #expect(doc.diagnostics.allSatisfy { $0.severity == .warning && $0.error.code == .duplicateKey })
    #expect(doc.diagnostics.map { "\($0.error.line):\($0.error.column)" } == ["4:1", "6:1"])
    #expect(doc.diagnostics[0].error.message.contains("test:2:5"))
  }

  @Test func positions() throws {
    let doc = try parse("[sec]\n  key =  value\n  k2:\"q\"\n", as: ini)
    #expect(iniPosition(doc, "sec") == "1:1")
    #expect(iniPosition(doc, "sec.key") == "2:10")
    #expect(iniPosition(doc, "sec.k2") == "3:6")
    let crlf = try parse("[s]\r\na = 1\r\n\r\nb = \"x\"\r\n", as: ini)
    #expect(iniPosition(crlf, "s.a") == "2:5")
    #expect(iniPosition(crlf, "s.b") == "4:5")
    #expect(iniString(crlf, "s.a") == "1")
    let bom = try parse("\u{FEFF}a = 1\nb = 2\n", as: ini)
    #expect(iniPosition(bom, "a") == "1:5")
    #expect(iniString(bom, "a") == "1")
    let multibyte = try parse("ключ = значение\n[é] \nλ = x\n", as: ini)
    #expect(iniPosition(multibyte, "ключ") == "1:12")
    #expect(iniPosition(multibyte, "é.λ") == "3:6")
    let dotted = try parse("[s]\n  a.b = 1\n", as: ini)
    #expect(iniPosition(dotted, "s.a") == "2:3")
    #expect(iniPosition(dotted, "s.a.b") == "2:9")
    let implicit = try parse("[x.y]\n", as: ini)
    #expect(iniPosition(implicit, "x") == "1:1")
  }

  @Test func noTrailingNewlineAndEmptyFile() throws {
    #expect(iniString(try parse("a = 1", as: ini), "a") == "1")
    #expect(try parse("", as: ini).root.table?.isEmpty == true)
    #expect(try parse("\u{FEFF}", as: ini).root.table?.isEmpty == true)
    #expect(iniString(try parse("a = 1\r", as: ini), "a") == "1")
  }

  @Test func unknownDirectiveWarns() throws {
    let doc = try parse("  a = 1\n  !frobnicate now\nb = 2\n", as: ini)
    #expect(doc.diagnostics.map(\.error.code) == [.unknownDirective])
    #expect(doc.diagnostics[0].error.line == 2 && doc.diagnostics[0].error.column == 3)
    #expect(iniString(doc, "b") == "2")
  }
}
