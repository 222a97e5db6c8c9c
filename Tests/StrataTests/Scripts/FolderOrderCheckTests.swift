import Foundation
import Testing

/// `Scripts/check-folder-order.py`, run on small repositories of its own (and once on this one): a file
/// may name what its folder's level and the levels below define, never what only a higher level does.
@Suite struct FolderOrderCheckTests {
  let script = repositoryRoot + "/Scripts/check-folder-order.py"

  /// Runs the script, without the repository's exceptions, on a tree holding `files` (paths under
  /// Sources/Strata).
  func check(_ files: [String: String]) async throws -> Spawn.Result {
    try await withTemporaryDirectory { root in
      for (path, text) in files { try write(text, to: root + "/Sources/Strata/" + path) }
      return try await Spawn.run("/usr/bin/python3", [script, "--without-exceptions", root])
    }
  }

  let support = "func joinPath(_ a: String, _ b: String) -> String { a + \"/\" + b }\n"
  let formats = "struct INIParseSession {\n  static func normalize(_ p: String) -> String { p }\n}\n"

  @Test func aHigherFolderUsingALowerOnePasses() async throws {
    let result = try await check([
      "Support/Paths.swift": support,
      "Formats/INI/INIIncludes.swift": formats + "let included = joinPath(\"/etc\", \"a.ini\")\n",
    ])
    #expect(result.status == 0, "\(result.output)")
    #expect(result.output == "the folder order holds (2 files, 0 listed exceptions)\n")
  }

  @Test func aLowerFolderNamingAHigherOnesTypeFailsNamingBoth() async throws {
    let result = try await check([
      "Support/Paths.swift": support,
      "Formats/INI/INIIncludes.swift": formats,
      "Support/FileTrust.swift": "let top = INIParseSession.normalize(\"/\")\n",
    ])
    #expect(result.status == 1)
    #expect(
      result.output.contains(
        "Sources/Strata/Support/FileTrust.swift: names 'INIParseSession', defined in Formats/, a higher "
          + "level than Support/"))
  }

  @Test func namesInCommentsAndStringsDoNotCount() async throws {
    let result = try await check([
      "Formats/INI/INIIncludes.swift": formats,
      "Support/FileTrust.swift": "// INIParseSession\n/// INIParseSession\nlet text = \"INIParseSession\"\n",
    ])
    #expect(result.status == 0, "\(result.output)")
  }

  @Test func aFolderWithoutALevelFails() async throws {
    let result = try await check(["Plugins/Plugin.swift": "struct Plugin {}\n"])
    #expect(result.status == 1)
    #expect(result.output.contains("Sources/Strata/Plugins/Plugin.swift: the folder 'Plugins' has no level"))
  }

  @Test func onlyTheLockingHelperTouchesABoxsLockedState() async throws {
    let result = try await check([
      "Groups/SettingBox.swift": "final class SettingBox {\n  let lockedState = 0\n}\n",
      "Groups/SettingBox+Locking.swift":
        "extension SettingBox {\n  func withState() { _ = lockedState }\n}\n",
      "Groups/SettingRecord.swift": "func purge(_ box: SettingBox) { _ = box.lockedState }\n",
    ])
    #expect(result.status == 1)
    #expect(
      result.output == "Sources/Strata/Groups/SettingRecord.swift: touches a setting box's lockedState; "
        + "go through withState (it publishes the read cache on every exit) or readState\n")
  }

  @Test func thisRepositoryKeepsTheOrderWithItsListedExceptionsOnly() async throws {
    let result = try await Spawn.run("/usr/bin/python3", [script, repositoryRoot])
    #expect(result.status == 0, "\(result.output)")
  }
}
