import Foundation
import Testing

@testable import Strata

/// Parses `/etc/demo/main.ini` from a temporary root holding `files` (paths under the root).
private func parseTree(
  _ files: [String: String], maxIncludedFiles: Int = 256, main: String = "/etc/demo/main.ini",
  includeDirectories: [String] = []
) throws -> Result<Document, StrataError> {
  try withTemporaryDirectory { root in
    for (path, text) in files { try write(text, to: root + path) }
    var options = ParseOptions(maxIncludedFiles: maxIncludedFiles, resolvePath: { root + $0 })
    options.includeDirectories = includeDirectories
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
    // Origins and the list show the resolved path, without `..`.
    #expect(doc.includedFiles == ["/etc/demo/conf/extra.ini", "/etc/demo/more/\"last.ini\""])
    #expect(doc.root.table?.keys == ["s", "top", "t", "last"])
  }

  @Test func quotedAndAbsolutePaths() throws {
    let doc = try parseTree(
      [
        "/etc/demo/main.ini": "!include \"with space.ini\"\n!include /opt/other/x.ini\n",
        "/etc/demo/with space.ini": "a = 1\n",
        "/opt/other/x.ini": "b = 2\n",
      ], includeDirectories: ["/opt/other"]
    ).get()
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
    let doc = try parseTree(
      [
        "/etc/demo/main.ini": "!includedir /etc/mysql/conf.d/\nk = 1\n",
        "/etc/mysql/conf.d/.keep": "",
      ], includeDirectories: ["/etc/mysql"]
    ).get()
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
      failure(try parseTree(["/etc/demo/main.ini": "  a = 1\n  !include nope.ini\n"]))
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
      error.message == "include cycle: /etc/demo/main.ini → /etc/demo/sub/b.ini → /etc/demo/main.ini")
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

/// Includes stay inside the configuration's tree, and cost what one file may.
@Suite struct INIIncludeBoundsTests {
  @Test(arguments: [
    "!include ../../../../../../etc/shadow\n",
    "!include /etc/passwd\n",
    "!include ../outside.ini\n",
    "!includedir ../\n",
    "!include sub/../../outside.ini\n",
  ])
  func anIncludeThatLeavesTheTreeIsRefused(text: String) throws {
    let result = try parseTree([
      "/etc/demo/main.ini": "a = 1\n" + text,
      "/etc/outside.ini": "secret = 1\n",
      "/etc/demo/sub/.keep": "",
    ])
    #expect(failure(result) == "includeOutsideTree /etc/demo/main.ini:2:1")
    guard case .failure(let error) = result else { return }
    #expect(error.message.contains("outside the configuration's directories (/etc/demo)"))
  }

  /// A main file named without a directory (`main.ini`, as `config-dump main.ini` names it) lies in the
  /// current directory, `.`: its includes resolve there and stay inside it, and the refusal names it.
  @Test func aBareNamedFileIncludesFromTheCurrentDirectory() throws {
    try withTemporaryDirectory { root in
      try write("a = 1\n!include extra.ini\n", to: root + "/work/main.ini")
      try write("b = 2\n", to: root + "/work/extra.ini")
      try write("c = 3\n!include ../outside.ini\n", to: root + "/work/escape.ini")
      try write("secret = 1\n", to: root + "/outside.ini")
      // Relative paths are read under `root/work`, as if it were the current directory.
      let options = ParseOptions(resolvePath: { $0.hasPrefix("/") ? root + $0 : root + "/work/" + $0 })
      let document = try #require(try Formats.load(path: "main.ini", options: options))
      #expect(iniString(document, "b") == "2")
      #expect(document.includedFiles == ["extra.ini"])
      let error = #expect(throws: StrataError.self) { try Formats.load(path: "escape.ini", options: options) }
      #expect(error?.code == .includeOutsideTree)
      #expect(
        error?.message.contains("'../outside.ini' is outside the configuration's directories (.)") == true)
    }
  }

  @Test func aLinkThatPointsOutOfTheTreeIsRefused() throws {
    try withTemporaryDirectory { root in
      try write("a = 1\n!include link.ini\n", to: root + "/etc/demo/main.ini")
      try write("secret = 1\n", to: root + "/etc/other.ini")
      try FileManager.default.createSymbolicLink(
        atPath: root + "/etc/demo/link.ini", withDestinationPath: root + "/etc/other.ini")
      #expect {
        try Formats.load(path: "/etc/demo/main.ini", options: ParseOptions(resolvePath: { root + $0 }))
      } throws: { error in
        (error as? StrataError)?.code == .includeOutsideTree
      }
      // A link that stays inside is fine.
      try write("inner = 2\n", to: root + "/etc/demo/conf/inner.ini")
      try FileManager.default.removeItem(atPath: root + "/etc/demo/link.ini")
      try FileManager.default.createSymbolicLink(
        atPath: root + "/etc/demo/link.ini", withDestinationPath: "conf/inner.ini")
      let document = try Formats.load(
        path: "/etc/demo/main.ini", options: ParseOptions(resolvePath: { root + $0 }))
      #expect(document?.root.value(at: "inner")?.kind == .string("2"))
    }
  }

  @Test func anIncludeDirectoryCanBeAllowed() throws {
    let result = try parseTree(
      ["/etc/demo/main.ini": "!include /usr/share/demo/base.ini\n", "/usr/share/demo/base.ini": "b = 1\n"],
      includeDirectories: ["/usr/share/demo"])
    #expect(iniString(try result.get(), "b") == "1")
  }

  @Test func oneBigFileIncludedManyTimesCostsWhatOneFileMay() async throws {
    try await withTemporaryDirectory { root in
      // 64 KiB included 300 times: 19 MiB, over the 16 MiB a file may hold.
      let big = String(repeating: "key = some value to make this line longer\n", count: 1560)
      try write(big, to: root + "/etc/demo/big.ini")
      try write(String(repeating: "!include big.ini\n", count: 300), to: root + "/etc/demo/main.ini")
      let options = ParseOptions(resolvePath: { root + $0 })
      // Under the limit, the same includes load.
      let small = ParseOptions(maxFileSize: 32 << 20, maxIncludedFiles: 400, resolvePath: { root + $0 })
      // Seconds of parsing in a debug build: on a thread of its own, not the cooperative pool's.
      let (refused, loaded) = await onOwnThread {
        (
          Result { try Formats.load(path: "/etc/demo/main.ini", options: options)?.root.value(at: "key") },
          Result { try Formats.load(path: "/etc/demo/main.ini", options: small)?.root.value(at: "key") }
        )
      }
      #expect {
        try refused.get()
      } throws: { error in
        let error = error as? StrataError
        return error?.code == .fileTooLarge && error?.message.contains("each inclusion counts") == true
          && error?.location?.hasPrefix("/etc/demo/main.ini:") == true
      }
      #expect(try loaded.get() != nil)
    }
  }
}
