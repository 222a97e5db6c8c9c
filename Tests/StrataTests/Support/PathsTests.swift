import Foundation
import StrataPlatform
import Testing

@testable import Strata

/// The path arithmetic every caller shares (`Paths.swift`) and the disk questions about paths
/// (`FileSystem`). The helpers a reload runs for every file work on UTF-8 bytes; they give what the
/// Character-based versions they replaced gave, on every path where `/` and `.` stand alone.
@Suite struct PathsTests {
  static let paths = [
    "", "/", "//", "///", ".", "..", "./", "../", "/.", "/..", "a", "a/", "a//", "/a", "/a/", "a/b", "/a/b/c",
    "/a/./b", "/a/../b", "/a/b/..", "/a/b/../..", "/a/b/../../..", "../a", "../../a/..", "a/../../b",
    "/etc//app///app.ini", "/etc/app/app.ini/", "/etc/app/.hidden", "/etc/app/.env", "/etc/app/.env.local",
    "/etc/app/app.INI", "/etc/app/APP.Json", "/etc/app/archive.tar.gz", "/etc/app/noext",
    "/etc/app/trailing.",
    "/etc/app./file", "/etc/app.d/", "/étc/äpp/äpp.ïni", "/etc/app/日本.ini", "/etc/app/名前.JSON",
    "/etc/app/ÅPP.İNI", "/etc/app/emoji👍🏽.ini", "relative/./path/../x.plist", ".../...", "a/.../b",
  ]

  @Test func normalizeGivesWhatTheCharacterVersionGave() {
    for path in Self.paths {
      #expect(normalizedPath(path) == Self.characterNormalize(path), "\(path)")
    }
  }

  @Test func directoryGivesWhatTheCharacterVersionGave() {
    for path in Self.paths {
      #expect(directoryPart(of: path) == Self.characterDirectory(path), "\(path)")
    }
  }

  @Test func extensionsGiveWhatTheCharacterVersionsGave() {
    for path in Self.paths {
      #expect(fileExtension(of: path) == Self.characterExtension(path), "\(path)")
      #expect(dotfileExtension(of: path) == Self.characterDotfileExtension(path), "\(path)")
    }
  }

  /// A `/` followed by a combining mark is one Character but two bytes; the kernel splits there.
  @Test func aSlashBeforeACombiningMarkSeparatesAsOnDisk() {
    #expect(normalizedPath("/a/\u{301}b/../c") == "/a/c")
    #expect(directoryPart(of: "/a/\u{301}b") == "/a")
    #expect(fileExtension(of: "/a.json/\u{301}b") == nil)
  }

  /// A bare name's directory is the current one, `.`, as POSIX `dirname` says: a directory every caller
  /// can open, list, create a file in, or resolve an include against (the INI includes' own version
  /// answered `""`, which none of them can use; the writer's answered `.`).
  @Test func aBareNameLiesInTheCurrentDirectory() {
    #expect(directoryPart(of: "demo.ini") == ".")
    #expect(directoryPart(of: "") == ".")
    #expect(directoryPart(of: "/demo.ini") == "/")
    #expect(directoryPart(of: "/etc/demo/demo.ini") == "/etc/demo")
    #expect(directoryPart(of: "etc/demo.ini") == "etc")
    // Joined back, the name is as written: an include of a bare-named file is reported as written.
    #expect(joinRelative(directoryPart(of: "main.ini"), "extra.ini") == "extra.ini")
    #expect(joinRelative(directoryPart(of: "main.ini"), "../x.ini") == "../x.ini")
  }

  @Test func joinRelativeKeepsAbsoluteNamesAndDropsDotsAndDoubledSlashes() {
    #expect(joinRelative("/etc/demo", "conf/extra.ini") == "/etc/demo/conf/extra.ini")
    #expect(joinRelative("/etc/demo", "/etc/other.ini") == "/etc/other.ini")
    #expect(joinRelative("/etc/demo/", "./a//b/./c") == "/etc/demo/a/b/c")
    #expect(joinRelative("/etc/demo", "../x") == "/etc/demo/../x")
    #expect(joinRelative("", "a") == "a")
    #expect(joinRelative(".", ".") == ".")
    #expect(joinRelative("/", ".") == "/")
  }

  @Test func joinPathPutsExactlyOneSlashBetween() {
    #expect(joinPath("/etc", "demo") == "/etc/demo")
    #expect(joinPath("/etc/", "demo") == "/etc/demo")
    #expect(joinPath("/", "demo") == "/demo")
    #expect(joinPath("", "demo") == "demo")
  }

  @Test func theLastComponentIgnoresTrailingSlashes() {
    #expect(lastComponent(of: "/etc/demo/demo.ini") == "demo.ini")
    #expect(lastComponent(of: "/etc/demo/") == "demo")
    #expect(lastComponent(of: "demo.ini") == "demo.ini")
    #expect(lastComponent(of: "/") == "/")
    #expect(lastComponent(of: "") == "")
  }

  @Test func insideAndParentComponentsAreWholeComponents() {
    #expect(isPath("/etc/demo/a.ini", inside: "/etc/demo"))
    #expect(isPath("/etc/demo", inside: "/etc/demo"))
    #expect(!isPath("/etc/demo2/a.ini", inside: "/etc/demo"))
    #expect(isPath("/anything", inside: "/"))
    #expect(hasParentComponent("/etc/../x"))
    #expect(hasParentComponent(".."))
    #expect(!hasParentComponent("/etc/..x/a..b/..."))
  }

  @Test func aRelativePathIsMadeAbsoluteAgainstTheCurrentDirectory() throws {
    let current = FileManager.default.currentDirectoryPath
    #expect(FileSystem.absolutePath("/etc/demo") == "/etc/demo")
    #expect(FileSystem.absolutePath("demo.ini") == joinPath(current, "demo.ini"))
    #expect(FileSystem.absolutePath("./demo.ini") == joinPath(current, "demo.ini"))
    #expect(FileSystem.realPath("") == FileSystem.realPath("."))
    #expect(FileSystem.realPath("/nonexistent-strata-path/x") == nil)
  }

  @Test func listingADirectorySaysWhyItCannot() throws {
    try withTemporaryDirectory { dir in
      try write("a = 1\n", to: dir + "/d/a.ini")
      try write("", to: dir + "/d/.hidden")
      #expect(try FileSystem.names(inDirectory: dir + "/d").sorted() == [".hidden", "a.ini"])
      #expect(try FileSystem.contents(ofDirectory: dir + "/missing", reportedAs: "missing") == nil)
      #expect(throws: FileSystem.ListingFailure(code: ENOENT)) {
        try FileSystem.names(inDirectory: dir + "/missing")
      }
      #expect(throws: FileSystem.ListingFailure(code: ENOTDIR)) {
        try FileSystem.names(inDirectory: dir + "/d/a.ini")
      }
      let error = #expect(throws: StrataError.self) {
        try FileSystem.contents(ofDirectory: dir + "/d/a.ini", reportedAs: "/etc/demo/a.ini")
      }
      #expect(error?.code == .unreadable)
      #expect(error?.path == "/etc/demo/a.ini")
    }
  }

  // The versions replaced, kept as the reference.

  static func characterNormalize(_ path: String) -> String {
    var parts: [Substring] = []
    for part in path.split(separator: "/") where part != "." {
      if part == "..", let last = parts.last, last != ".." {
        parts.removeLast()
      } else {
        parts.append(part)
      }
    }
    return (path.hasPrefix("/") ? "/" : "") + parts.joined(separator: "/")
  }

  static func characterDirectory(_ path: String) -> String {
    guard let slash = path.lastIndex(of: "/") else { return "." }
    return slash == path.startIndex ? "/" : String(path[..<slash])
  }

  static func characterExtension(_ path: String) -> String? {
    let name = path.split(separator: "/").last.map(String.init) ?? path
    guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return nil }
    return String(name[name.index(after: dot)...]).lowercased()
  }

  static func characterDotfileExtension(_ path: String) -> String? {
    let name = path.split(separator: "/").last.map(String.init) ?? path
    guard name.count > 1, name.first == ".", name.dropFirst().firstIndex(of: ".") == nil else { return nil }
    return String(name.dropFirst()).lowercased()
  }
}
