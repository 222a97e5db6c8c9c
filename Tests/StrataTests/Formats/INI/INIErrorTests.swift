import Foundation
import Testing

@testable import Strata

@Suite("INI errors")
struct INIErrorTests {
  @Test(arguments: [
    // Section headers.
    ("[unterminated\n", "syntax 1:14"),
    ("[]\n", "syntax 1:2"),
    ("[ ]\n", "syntax 1:3"),
    ("[a.]\n", "syntax 1:4"),
    ("[.a]\n", "syntax 1:2"),
    ("[a..b]\n", "syntax 1:4"),
    ("[a] junk\n", "syntax 1:5"),
    ("[[a]]\n", "syntax 1:2"),
    ("[a\"b\"]\n", "syntax 1:3"),
    ("[a \"b\" c]\n", "syntax 1:8"),
    ("[a \"b]\n", "syntax 1:7"),
    // Found by the fuzzer: a dot after a quoted name at the very end of the file (no newline).
    ("[a \"b\" .", "syntax 1:9"),
    ("[a \"b\" .\t", "syntax 1:10"),
    ("[a \"b\\x\"]\n", "invalidEscape 1:6"),
    // Keys.
    ("= value\n", "syntax 1:1"),
    ("  : value\n", "syntax 1:3"),
    ("a..b = 1\n", "syntax 1:3"),
    (".a = 1\n", "syntax 1:1"),
    ("a. = 1\n", "syntax 1:3"),
    ("[] = 1\n", "syntax 1:2"),
    ("\"a\" b = 1\n", "syntax 1:5"),
    ("\"a = 1\n", "syntax 1:7"),
    // Values.
    ("key = \"unterminated\n", "syntax 1:20"),
    ("key = 'unterminated\n", "syntax 1:20"),
    ("k = \"a\" b\n", "syntax 1:9"),
    ("k = 'a'b\n", "syntax 1:8"),
    ("k = \"a\\qb\"\n", "invalidEscape 1:7"),
    ("k = \"\\u12G4\"\n", "invalidEscape 1:6"),
    ("k = \"\\uD800\"\n", "invalidEscape 1:6"),
    ("k = \"\\uDC00\"\n", "invalidEscape 1:6"),
    ("a = 1\nk = \"x \\\n  y\\z\"\n", "invalidEscape 3:4"),
    ("k = \"open \\\n  still open\n", "syntax 2:13"),
    ("k = \"end \\", "unexpectedEnd 1:10"),
    // Value versus section (a value versus a table of dotted keys is not an error: see INIDottedKeyTests).
    ("a = 1\n[a]\n", "syntax 2:2"),
    ("[s.t]\n[s]\nt = 1\n", "syntax 3:1"),
    ("[s]\nt.u = 1\n[s.t]\nt = 2\n[s]\nt = 3\n", "syntax 6:1"),
    // Directives.
    ("!\n", "syntax 1:2"),
    ("!include\n", "syntax 1:9"),
    ("!includedir   # nothing\n", "syntax 1:15"),
  ])
  func syntaxErrors(text: String, expected: String) {
    #expect(iniFailure(text) == expected, "\(text.debugDescription)")
  }

  @Test func messagesSayWhatWasExpected() {
    #expect(
      parseError("[unterminated\n", as: INIFormat())?.message == "expected ']' to close the section header")
    #expect(parseError("= v\n", as: INIFormat())?.message == "expected a key before '='")
    #expect(parseError("[]\n", as: INIFormat())?.message == "expected a section name")
    #expect(
      parseError("k = \"x\n", as: INIFormat())?.message
        == "expected '\"' to close the value opened at line 1, column 5")
    #expect(
      parseError("a = 1\n[a]\n", as: INIFormat())?.message.contains(
        "'a' is already a value (set at test:1:5)") == true)
    let escape = parseError("k = \"\\q\"\n", as: INIFormat(), path: "/etc/x.ini")
    #expect(
      escape?.description
        == "/etc/x.ini:1:6: invalid escape: '\\' followed by 'q'; expected \\\" \\\\ \\n \\t \\r or \\uXXXX")
  }

  @Test func invalidUTF8HasAPosition() {
    let cases: [([UInt8], String)] = [
      (Array("a = 1\nb = x".utf8) + [0xFF] + Array("\n".utf8), "2:6"),
      (Array("é = ".utf8) + [0xC3, 0x28], "1:6"),
      ([0xEF, 0xBB, 0xBF] + Array("k = ".utf8) + [0xC0, 0x80], "1:5"),  // overlong, after a BOM
      (Array("k = ".utf8) + [0xED, 0xA0, 0x80], "1:5"),  // a surrogate
      (Array("k = ".utf8) + [0xF4, 0x90, 0x80, 0x80], "1:5"),  // past U+10FFFF
      (Array("# comment ".utf8) + [0xE2, 0x82], "1:11"),  // truncated, even in a comment
      (Array("\r\n\r\nabcdefghijklmnop".utf8) + [0x80], "3:17"),
    ]
    for (bytes, position) in cases {
      do {
        _ = try INIFormat().parse(bytes, path: "t", options: ParseOptions())
        Issue.record("expected invalidUTF8 for \(bytes)")
      } catch {
        #expect(error.code == .invalidUTF8)
        #expect("\(error.line):\(error.column)" == position, "\(bytes)")
      }
    }
  }

  @Test func deepNestingIsAnError() {
    let key = Array(repeating: "k", count: 600).joined(separator: ".")
    #expect(iniFailure("\(key) = 1\n")?.hasPrefix("nestingTooDeep") == true)
    #expect(iniFailure("[\(key)]\n")?.hasPrefix("nestingTooDeep") == true)
    let ok = Array(repeating: "k", count: 100).joined(separator: ".")
    #expect(iniFailure("[\(ok)]\n\(ok) = 1\n") == nil)
  }

  @Test func arrayAndScalarReplaceEachOtherWithAWarning() throws {
    let doc = try parse("k = 1\nk[] = 2\nk[] = 3\nj[] = 1\nj = 2\n", as: INIFormat())
    #expect(
      doc.root.value(at: "k")?.kind == .array(["2", "3"].map { SettingValue(.string($0), origin: .runtime) }))
    #expect(iniString(doc, "j") == "2")
    #expect(doc.diagnostics.map(\.error.line) == [2, 5])
  }
}
