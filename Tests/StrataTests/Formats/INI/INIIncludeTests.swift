import Foundation
import Testing

@testable import Strata

/// Parses `/etc/demo/main.ini` from a temporary root holding `files` (paths under the root).
private func parseTree(
  _ files: [String: String], maxIncludedFiles: Int = 256, main: String = "/etc/demo/main.ini"
) throws -> Result<Document, StrataError> {
  try withTemporaryDirectory { root in
    for (path, text) in files { try write(text, to: root + path) }
    let options = ParseOptions(maxIncludedFiles: maxIncludedFiles, resolvePath: { root + $0 })
    return Result { () throws(StrataError) in
      guard let document = try Formats.load(path: main, options: options) else {
        throw StrataError(.notFound, "main file missing")
      }
      return document
    }
  }
}

private func failure(_ result: Result<Document, StrataError>) -> String {
  guard case .failure(let error) = result else { return "no error" }
  return "\(error.code) \(error.location ?? "?")"
}

@Suite("INI includes")
struct INIIncludeTests {
  @Test func includeIsRelativeAndSplicedAtTheTopLevel() throws {
    let result = try parseTree([
      "/etc/demo/main.ini": "[s]\na = 1\n!include conf/extra.ini  # spliced here\nb = 2\n",
      "/etc/demo/conf/extra.ini": "top = x\n[t]\nk = v\n!include ../more/\"last.ini\"\n",
      "/etc/demo/more/\"last.ini\"": "last = 1\n",
    ])
    let doc = try result.get()
    #expect(iniString(doc, "top") == "x")
    #expect(iniString(doc, "t.k") == "v")
    // The including file's section is back in force after the include.
    #expect(iniString(doc, "s.b") == "2")
    #expect(iniString(doc, "last") == "1")
    #expect(doc.root.value(at: "top")?.origin == .file(path: "/etc/demo/conf/extra.ini", line: 1, column: 7))
    #expect(doc.root.value(at: "s.b")?.origin == .file(path: "/etc/demo/main.ini", line: 4, column: 5))
    #expect(doc.includedFiles == ["/etc/demo/conf/extra.ini", "/etc/demo/conf/../more/\"last.ini\""])
    #expect(doc.root.table?.keys == ["s", "top", "t", "last"])
  }

  @Test func quotedAndAbsolutePaths() throws {
    let doc = try parseTree([
      "/etc/demo/main.ini": "!include \"with space.ini\"\n!include /opt/other/x.ini\n",
      "/etc/demo/with space.ini": "a = 1\n",
      "/opt/other/x.ini": "b = 2\n",
    ]).get()
    #expect(iniString(doc, "a") == "1")
    #expect(iniString(doc, "b") == "2")
    #expect(doc.includedFiles == ["/etc/demo/with space.ini", "/opt/other/x.ini"])
  }

  @Test func includedirReadsSortedDropInsOnly() throws {
    var files = ["/etc/demo/main.ini": "[s]\n!includedir conf.d\nafter = 1\n"]
    for name in [
      "20-b.ini", "10-a.conf", "30-c.cnf", "40-d.cfg", "4913", "x.ini~", ".#x.ini", ".x.ini", "#x.ini#",
      "notes.txt", "x.ini.dpkg-new", "sub.ini/inner.ini",
    ] {
      files["/etc/demo/conf.d/" + name] = "order[] = \(name)\nwho = \(name)\n"
    }
    let doc = try parseTree(files).get()
    let expected = ["10-a.conf", "20-b.ini", "30-c.cnf", "40-d.cfg"]
    #expect(
      doc.root.value(at: "order")?.kind
        == .array(expected.map { SettingValue(.string($0), origin: .runtime) }))
    #expect(iniString(doc, "who") == "40-d.cfg")
    #expect(iniString(doc, "s.after") == "1")
    #expect(doc.includedFiles == expected.map { "/etc/demo/conf.d/" + $0 })
    #expect(doc.diagnostics.count == 3)  // `who` set four times
  }

  @Test func includedirWithTrailingSlashAndEmptyDirectory() throws {
    let doc = try parseTree([
      "/etc/demo/main.ini": "!includedir /etc/mysql/conf.d/\nk = 1\n",
      "/etc/mysql/conf.d/.keep": "",
    ]).get()
    #expect(iniString(doc, "k") == "1")
    #expect(doc.includedFiles.isEmpty)
  }

  @Test func errorsInIncludedFilesNameThatFile() throws {
    let result = try parseTree([
      "/etc/demo/main.ini": "\n!include bad.ini\n",
      "/etc/demo/bad.ini": "ok = 1\n[broken\n",
    ])
    #expect(failure(result) == "syntax /etc/demo/bad.ini:2:8")
  }

  @Test func missingIncludeIsNotFoundAtTheDirective() throws {
    #expect(
      failure(try parseTree(["/etc/demo/main.ini": "a = 1\n  !include nope.ini\n"]))
        == "notFound /etc/demo/main.ini:2:3")
    #expect(
      failure(try parseTree(["/etc/demo/main.ini": "!includedir nope.d\n"]))
        == "notFound /etc/demo/main.ini:1:1")
  }

  @Test func resolvePathIsUsedForReading() throws {
    // Without the root prefix, /etc/demo/x.ini does not exist on this machine.
    let result = Result { () throws(StrataError) in
      try INIFormat().parse(
        Array("!include /etc/demo/strata-test-missing.ini\n".utf8), path: "/etc/demo/m.ini",
        options: ParseOptions())
    }
    #expect(failure(result) == "notFound /etc/demo/m.ini:1:1")
  }

  @Test func cyclesAreErrors() throws {
    let direct = try parseTree(["/etc/demo/main.ini": "a = 1\n!include ./main.ini\n"])
    #expect(failure(direct) == "includeCycle /etc/demo/main.ini:2:1")
    let indirect = try parseTree([
      "/etc/demo/main.ini": "!include sub/b.ini\n",
      "/etc/demo/sub/b.ini": "x = 1\n\n!include ../main.ini\n",
    ])
    #expect(failure(indirect) == "includeCycle /etc/demo/sub/b.ini:3:1")
    guard case .failure(let error) = indirect else { return }
    #expect(
      error.message == "include cycle: /etc/demo/main.ini → /etc/demo/sub/b.ini → /etc/demo/sub/../main.ini")
    let viaDirectory = try parseTree([
      "/etc/demo/main.ini": "!includedir conf.d\n",
      "/etc/demo/conf.d/a.ini": "!include ../main.ini\n",
    ])
    #expect(failure(viaDirectory) == "includeCycle /etc/demo/conf.d/a.ini:1:1")
  }

  @Test func includingTheSameFileTwiceIsNotACycle() throws {
    let doc = try parseTree([
      "/etc/demo/main.ini": "[a]\n!include common.ini\n[b]\n!include common.ini\n",
      "/etc/demo/common.ini": "[shared]\nk[] = 1\n",
    ]).get()
    #expect(
      doc.root.value(at: "shared.k")?.kind
        == .array(["1", "1"].map { SettingValue(.string($0), origin: .runtime) }))
    #expect(doc.includedFiles.count == 2)
  }

  @Test func tooManyIncludedFiles() throws {
    var files = ["/etc/demo/main.ini": "!include 1.ini\n!include 2.ini\n!include 3.ini\n"]
    for n in 1...3 { files["/etc/demo/\(n).ini"] = "k\(n) = 1\n" }
    #expect(failure(try parseTree(files, maxIncludedFiles: 2)) == "tooManyFiles /etc/demo/main.ini:3:1")
    #expect(try parseTree(files, maxIncludedFiles: 3).get().includedFiles.count == 3)
    // The limit counts files included at any depth, through directories too.
    let chain = try parseTree(
      [
        "/etc/demo/main.ini": "!includedir d\n", "/etc/demo/d/a.ini": "!include ../d/../d/b.ini\n",
        "/etc/demo/d/b.ini": "b = 1\n",
      ],
      maxIncludedFiles: 1)
    #expect(failure(chain) == "tooManyFiles /etc/demo/d/a.ini:1:1")
  }
}
