import Testing

@testable import Strata

/// The path helpers a reload runs for every file work on UTF-8 bytes; they give what the
/// Character-based versions they replaced gave, on every path where `/` and `.` stand alone.
@Suite struct PathBytesTests {
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
      #expect(INIParseSession.normalize(path) == Self.characterNormalize(path), "\(path)")
    }
  }

  @Test func directoryGivesWhatTheCharacterVersionGave() {
    for path in Self.paths {
      #expect(INIParseSession.directory(of: path) == Self.characterDirectory(path), "\(path)")
    }
  }

  @Test func extensionsGiveWhatTheCharacterVersionsGave() {
    for path in Self.paths {
      #expect(Formats.fileExtension(of: path) == Self.characterExtension(path), "\(path)")
      #expect(Formats.dotfileExtension(of: path) == Self.characterDotfileExtension(path), "\(path)")
    }
  }

  /// A `/` followed by a combining mark is one Character but two bytes; the kernel splits there.
  @Test func aSlashBeforeACombiningMarkSeparatesAsOnDisk() {
    #expect(INIParseSession.normalize("/a/\u{301}b/../c") == "/a/c")
    #expect(INIParseSession.directory(of: "/a/\u{301}b") == "/a")
    #expect(Formats.fileExtension(of: "/a.json/\u{301}b") == nil)
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
    guard let slash = path.lastIndex(of: "/") else { return "" }
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
