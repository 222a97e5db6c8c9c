import Foundation
import Testing

@testable import Strata

/// php-fpm's dotted keys beside a value of the same name, configparser's indented continuation lines,
/// and a trailing backslash that continues nothing.
@Suite struct INIDottedKeyTests {
  let ini = INIFormat()

  static let pool = """
    [www]
    user = www-data
    listen = /run/php/php8.2-fpm.sock
    listen.owner = www-data
    listen.group = www-data
    ;listen.mode = 0660
    pm = dynamic
    pm.max_children = 5

    """

  @Test func phpFPMsPoolFileLoadsWithEveryValue() throws {
    let doc = try parse(Self.pool, as: ini)
    #expect(iniString(doc, "www.listen") == "/run/php/php8.2-fpm.sock")
    #expect(iniString(doc, #"www."listen.owner""#) == "www-data")
    #expect(iniString(doc, #"www."listen.group""#) == "www-data")
    #expect(iniString(doc, "www.pm") == "dynamic")
    #expect(iniString(doc, #"www."pm.max_children""#) == "5")
    #expect(iniPosition(doc, #"www."listen.owner""#) == "4:16")
    #expect(doc.diagnostics.isEmpty)
  }

  @Test(arguments: [
    "listen = sock\nlisten.owner = a\nlisten.group = b\n",
    "listen.owner = a\nlisten = sock\nlisten.group = b\n",
    "listen.owner = a\nlisten.group = b\nlisten = sock\n",
  ])
  func theRuleDoesNotDependOnOrder(text: String) throws {
    let doc = try parse("[www]\n" + text, as: ini)
    let table = try #require(doc.root.value(at: "www")?.table)
    #expect(Set(table.keys) == ["listen", "listen.owner", "listen.group"])
    #expect(table["listen"]?.kind == .string("sock"))
    #expect(table["listen.owner"]?.kind == .string("a"))
    #expect(table["listen.group"]?.kind == .string("b"))
  }

  @Test func deeperCollisionsFlattenWhereTheyHappen() throws {
    for text in ["a.b.c = 1\na.b = 2\n", "a.b = 2\na.b.c = 1\n"] {
      let doc = try parse(text, as: ini)
      #expect(doc.root.value(atComponents: ["a", "b"])?.kind == .string("2"), "\(text)")
      #expect(doc.root.value(atComponents: ["a", "b.c"])?.kind == .string("1"), "\(text)")
    }
    // Arrays are values too.
    let array = try parse("x.y = 1\nx.y.z[] = 2\nx.y.z[] = 3\n", as: ini)
    #expect(
      array.root.value(atComponents: ["x", "y.z"])?.kind
        == .array([.init(.string("2"), origin: .runtime), .init(.string("3"), origin: .runtime)]))
  }

  /// Found by the fuzzer: a flattened name (`x.y`) that was in the table already, written literally.
  /// It was kept twice; now the later value wins, with a warning, as for any duplicate.
  @Test(arguments: [
    ("\"x.y\" = 1\nx.y = true\nx = 3\n", "true"),
    ("x.y = true\n\"x.y\" = 1\nx = 3\n", "1"),
  ])
  func aFlattenedNameThatIsThereAlreadyIsADuplicate(text: String, wins: String) throws {
    let doc = try parse(text, as: ini)
    let table = try #require(doc.root.table)
    #expect(table.keys.sorted() == ["x", "x.y"])
    #expect(table["x.y"]?.kind == .string(wins))
    #expect(table["x"]?.kind == .string("3"))
    #expect(doc.diagnostics.map(\.error.code) == [.duplicateKey])
    // What is written reads back as the same tree.
    let again = try parse(String(decoding: try ini.serialize(doc.root), as: UTF8.self), as: ini)
    #expect(again.root.table?.keys.sorted() == ["x", "x.y"])
    #expect(again.root.value(atComponents: ["x.y"])?.kind == .string(wins))
  }

  @Test func aFlattenedArrayStaysAnArray() throws {
    let doc = try parse("a.b[] = 1\na.b[] = 2\na = 3\na.b[] = 4\n", as: ini)
    #expect(doc.root.value(atComponents: ["a"])?.kind == .string("3"))
    #expect(
      doc.root.value(atComponents: ["a.b"])?.kind
        == .array(["1", "2", "4"].map { .init(.string($0), origin: .runtime) }))
  }

  @Test func aFlattenedSectionMeetingAValueIsAnError() {
    // `[s.a.b]` declares `b` below `a` (on the way); `a = 2` moves it to the name `a.b`, a value already.
    let error = #expect(throws: StrataError.self) {
      try parse("[s]\n\"a.b\" = 3\n[s.a.b]\nk = 1\n[s]\na = 2\n", as: ini)
    }
    #expect(error?.message.contains("'a.b' is set as a value (at test:2:9) and as a section") == true)
    #expect(error.map { "\($0.line):\($0.column)" } == "2:9")
  }

  @Test func dottedKeysThatCollideWithNothingStillNest() throws {
    let doc = try parse("[PHP]\nsession.save_path = /tmp\nsession.name = PHPSESSID\n", as: ini)
    #expect(iniString(doc, "PHP.session.save_path") == "/tmp")
    #expect(iniString(doc, "PHP.session.name") == "PHPSESSID")
  }

  @Test(arguments: [
    "[options]\npackages = find:\n[options.packages.find]\nwhere = src\n",
    "[options.packages.find]\nwhere = src\n[options]\npackages = find:\n",
  ])
  func aSectionBelowAValueTakesALiteralName(text: String) throws {
    // setuptools' setup.cfg: `packages = find:` in [options], and its own section [options.packages.find].
    let doc = try parse(text, as: ini)
    let options = try #require(doc.root.value(at: "options")?.table)
    #expect(Set(options.keys) == ["packages", "packages.find"])
    #expect(options["packages"]?.kind == .string("find:"))
    #expect(options["packages.find"]?.table?["where"]?.kind == .string("src"))
    // The section can be entered again by its name.
    let again = try parse(text + "[options.packages.find]\nexclude = tests\n", as: ini)
    #expect(iniString(again, #"options."packages.find".exclude"#) == "tests")
  }

  @Test func aValueAndASectionOfOneNameStayAnErrorInEitherOrder() {
    #expect(parseError("[s]\nt = 1\n[s.t]\n", as: ini).map { "\($0.line):\($0.column)" } == "3:4")
    #expect(parseError("[s.t]\nu = 1\n[s]\nt = 1\n", as: ini).map { "\($0.line):\($0.column)" } == "4:1")
    #expect(
      parseError("[s]\nt.u = 1\n[s.t]\n[s]\nt = 2\n", as: ini)?.message.contains("already a section") == true)
  }

  @Test func writesReachLiteralDottedKeys() throws {
    var editor = INIEditor(bytes: Array(Self.pool.utf8), path: "www.conf", options: ParseOptions())
    try editor.apply(SettingValue(.string("nginx"), origin: .runtime), at: #"www."listen.owner""#)
    try editor.apply(SettingValue(.string("0600"), origin: .runtime), at: #"www."listen.mode""#)
    let text = String(decoding: editor.bytes, as: UTF8.self)
    #expect(text.contains("listen.owner = nginx\n"))
    let doc = try parse(text, as: ini)
    #expect(iniString(doc, #"www."listen.owner""#) == "nginx")
    #expect(iniString(doc, #"www."listen.mode""#) == "0600")
    #expect(iniString(doc, "www.listen") == "/run/php/php8.2-fpm.sock")
    #expect(iniString(doc, #"www."listen.group""#) == "www-data")
  }
}

@Suite struct INIContinuationTests {
  let ini = INIFormat()

  @Test func deeperIndentedLinesContinueAValueAsConfigparserReadsThem() throws {
    let text = """
      [testenv]
      deps =
          pytest
          # a comment inside is left out

          coverage
      commands = pytest {posargs}
        --cov
      description = one line

      """
    let doc = try parse(text, as: ini)
    #expect(iniString(doc, "testenv.deps") == "\npytest\n\ncoverage")
    #expect(iniString(doc, "testenv.commands") == "pytest {posargs}\n--cov")
    #expect(iniString(doc, "testenv.description") == "one line")
    #expect(iniPosition(doc, "testenv.deps") == "2:7")
    #expect(iniPosition(doc, "testenv.description") == "9:15")
  }

  @Test func keysIndentedAlikeStayKeys() throws {
    // git config indents every key with a tab.
    let doc = try parse(
      "[core]\n\tbare = false\n\tfilemode = true\n[remote \"origin\"]\n\turl = x\n", as: ini)
    #expect(iniString(doc, "core.bare") == "false")
    #expect(iniString(doc, "core.filemode") == "true")
    #expect(iniString(doc, "remote.origin.url") == "x")
  }

  @Test func trailingBlankLinesAndInlineCommentsAreNotPartOfTheValue() throws {
    let doc = try parse("a = 1\n  two  # note\n\n\nb = 2\n", as: ini)
    #expect(iniString(doc, "a") == "1\ntwo")
    #expect(iniString(doc, "b") == "2")
    #expect(iniPosition(doc, "b") == "5:5")
  }

  @Test func aNULByteIsRefusedWithItsPosition() {
    let error = parseError("a = 1\nb = x\u{0}y\n", as: ini)
    #expect(error.map { "\($0.code) \($0.line):\($0.column)" } == "syntax 2:6")
    #expect(error?.message.contains("NUL byte") == true)
  }

  @Test func aFlagMayHoldAQuoteThatNeverCloses() throws {
    // systemd's tmpfiles.d lines read as flags; a broken quoted key before `=` is still an error.
    let line = #"F! /run/nologin 0644 - - - "System is booting up. See pam_nologin(8).""#
    let doc = try parse(line + "\n", as: ini)
    #expect(doc.root.table?[line]?.kind == .string("true"))
    #expect(parseError("\"abc = 1\n", as: ini)?.message.contains("expected '\"' to close the name") == true)
  }

  @Test func quotedValuesDoNotContinueByIndentation() throws {
    let doc = try parse("  a = \"x\"\n  b = 2\n", as: ini)
    #expect(iniString(doc, "a") == "x")
    #expect(iniString(doc, "b") == "2")
  }

  @Test func aTrailingBackslashBeforeAKeyIsKeptWithAWarning() throws {
    // mercurial's hgrc on Windows: a registry key that ends in a backslash.
    let doc = try parse("[extensions]\nregkey = Software\\SourceGear\\\nnext = 1\n", as: ini)
    #expect(iniString(doc, "extensions.regkey") == "Software\\SourceGear\\")
    #expect(iniString(doc, "extensions.next") == "1")
    #expect(doc.diagnostics.map { "\($0.error.line):\($0.error.column)" } == ["2:29"])
    #expect(doc.diagnostics.first?.error.message.contains("kept as text") == true)
    // At the end of the file, likewise.
    let last = try parse("k = end \\", as: ini)
    #expect(iniString(last, "k") == "end \\")
    #expect(last.diagnostics.count == 1)
    // Before an indented line or plain text it still joins.
    let joined = try parse("cmd = run \\\n  --fast \\\nnow\nx = 1\n", as: ini)
    #expect(iniString(joined, "cmd") == "run --fast now")
  }

  @Test func writesReplaceAMultiLineValueWhole() throws {
    let text = "[testenv]\ndeps =\n    pytest\n\n    coverage\ncommands = run\n"
    var editor = INIEditor(bytes: Array(text.utf8), path: "tox.ini", options: ParseOptions())
    try editor.apply(SettingValue(.string("tox"), origin: .runtime), at: "testenv.deps")
    let written = String(decoding: editor.bytes, as: UTF8.self)
    #expect(written == "[testenv]\ndeps = tox\ncommands = run\n")
    var remover = INIEditor(bytes: Array(text.utf8), path: "tox.ini", options: ParseOptions())
    try remover.apply(nil, at: "testenv.deps")
    #expect(String(decoding: remover.bytes, as: UTF8.self) == "[testenv]\ncommands = run\n")
  }
}
