import StrataPlatform
import Testing

@testable import Strata

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// `cannot open: Permission denied` names this process's uid, the owner and mode of what is in the
/// way, and the fix. As root nothing is denied, so the tests then run `config-dump` as `nobody`
/// through `setpriv`, and are skipped when that cannot be done.
@Suite(.linuxOnly("setpriv (util-linux) to drop privileges")) struct PermissionDeniedTests {
  static let nobody = "65534"

  /// Runs `config-dump --check file` as `nobody` (as root) or as this user; `nil` when root cannot
  /// drop its privileges here.
  func check(_ file: String) async throws -> Spawn.Result? {
    guard geteuid() == 0 else { return try await Spawn.run(configDumpPath, ["--check", file], within: 60) }
    let drop = ["--reuid=\(Self.nobody)", "--regid=\(Self.nobody)", "--clear-groups"]
    guard FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv"),
      try await Spawn.run("/usr/bin/setpriv", drop + ["/bin/true"], within: 60).status == 0
    else { return nil }
    return try await Spawn.run("/usr/bin/setpriv", drop + [configDumpPath, "--check", file], within: 60)
  }

  /// The uid the check runs as.
  var checkingUID: String { geteuid() == 0 ? Self.nobody : String(geteuid()) }

  @Test func anUnreadableFileNamesTheUidTheOwnerTheModeAndTheFix() async throws {
    try await withTemporaryDirectory { dir in
      let file = dir + "/demo.ini"
      try write("[server]\nport = 1\n", to: file)
      #expect(chmod(dir, 0o755) == 0)
      #expect(chmod(file, geteuid() == 0 ? 0o600 : 0o200) == 0)
      guard let run = try await check(file) else {
        try Test.cancel("root cannot drop its privileges here (setpriv): permission messages not tested")
      }
      let uid = checkingUID
      let owner = String(geteuid())
      let fix =
        geteuid() == 0
        ? "chgrp \(uid) \(file) && chmod g+r \(file), or run as uid 0"
        : "chmod u+r \(file), or run as uid \(owner)"
      #expect(run.status == 1, "\(run)")
      #expect(
        (run.output + run.errors).contains(
          "\(file): error: cannot open: Permission denied: this process runs as uid \(uid) (gid \(uid == Self.nobody ? Self.nobody : String(getegid()))); "
            + "the file is owned by uid \(owner), group \(getegid()), mode \(geteuid() == 0 ? "0600" : "0200"); fix it with: \(fix)"
        ),
        "\(run)")
    }
  }

  @Test func aDirectoryThatCannotBeSearchedIsNamedWithItsFix() async throws {
    try await withTemporaryDirectory { dir in
      let locked = dir + "/locked"
      let file = locked + "/demo.ini"
      try write("[server]\nport = 1\n", to: file)
      #expect(chmod(dir, 0o755) == 0)
      #expect(chmod(locked, geteuid() == 0 ? 0o700 : 0o600) == 0)
      defer { chmod(locked, 0o700) }  // so that the directory can be removed
      guard let run = try await check(file) else {
        try Test.cancel("root cannot drop its privileges here (setpriv): permission messages not tested")
      }
      let uid = checkingUID
      let mode = geteuid() == 0 ? "0700" : "0600"
      let fix = geteuid() == 0 ? "chgrp \(uid) \(locked) && chmod g+x \(locked)" : "chmod u+x \(locked)"
      #expect(run.status == 1, "\(run)")
      #expect(
        (run.output + run.errors).contains(
          "it cannot search the directory \(locked), which is owned by uid \(geteuid()), group \(getegid()), "
            + "mode \(mode); fix it with: \(fix), or run as uid \(geteuid())"),
        "\(run)")
    }
  }

  @Test func otherOpenFailuresKeepTheirShortMessage() throws {
    try withTemporaryDirectory { dir in
      // A path through a regular file: ENOTDIR, an absent layer, no permission story.
      try write("x", to: dir + "/file")
      #expect(try FileReader.read(dir + "/file/demo.ini", reportedAs: "demo.ini", limit: 1024) == nil)
      #expect(FilePermissions.octal(0) == "0000")
      #expect(FilePermissions.octal(0o644) == "0644")
    }
  }
}
