import Foundation
import StrataPlatform
import Testing

/// `config-dump --root R FILE…` checks an extracted tree as it will run, and messages under a root name
/// the files on disk.
@Suite struct ConfigDumpRootTests {
  /// An extracted mariadb package: `mariadb.cnf` includes two directories by absolute path.
  private func mariadb(in dir: String) throws -> String {
    let root = dir + "/pkg"
    try write(
      "[client-server]\nsocket = /run/mysqld/mysqld.sock\n!includedir /etc/mysql/conf.d/\n"
        + "!includedir /etc/mysql/mariadb.conf.d/\n", to: root + "/etc/mysql/mariadb.cnf")
    try write("[mysql]\n", to: root + "/etc/mysql/conf.d/mysql.cnf")
    try write("[mysqld]\nport = 3307\n", to: root + "/etc/mysql/mariadb.conf.d/50-server.cnf")
    return root
  }

  @Test func absoluteIncludesOfAFileResolveUnderTheRoot() async throws {
    try await withTemporaryDirectory { dir in
      let root = try mariadb(in: dir)
      // The file by its path on disk, or as the running system names it: the same tree either way.
      for file in [root + "/etc/mysql/mariadb.cnf", "/etc/mysql/mariadb.cnf"] {
        let run = try await runConfigDump(["--root", root, file])
        #expect(run.status == 0, "\(run.errors)")
        #expect(run.output.contains("mysqld.port           3307"), "\(run.output)")
        #expect(run.output.contains("client-server.socket  /run/mysqld/mysqld.sock"))
      }
      let relative = try await runConfigDump(
        ["--root", "pkg", "pkg/etc/mysql/mariadb.cnf", "--check"], in: dir)
      #expect(relative.status == 0, "\(relative.output)\(relative.errors)")
      #expect(relative.output.contains("0 errors"))
    }
  }

  @Test func withoutARootTheRefusedIncludeNamesTheFlag() async throws {
    try await withTemporaryDirectory { dir in
      let root = try mariadb(in: dir)
      let run = try await runConfigDump(["--check", root + "/etc/mysql/mariadb.cnf"])
      #expect(run.status == 1)
      #expect(run.output.contains("'/etc/mysql/conf.d' is outside the configuration's directories"))
      #expect(
        run.output.contains("give --root DIR: absolute includes are then read under DIR"), "\(run.output)")
    }
  }

  @Test func aRootThatIsMissingOrAloneIsAUsageError() async throws {
    try await withTemporaryDirectory { dir in
      let missing = try await runConfigDump(["--root", dir + "/nope", dir + "/a.ini"])
      #expect(missing.status == 2)
      #expect(missing.errors.contains("--root: no such directory: \(dir)/nope"))
      let alone = try await runConfigDump(["--root", dir])
      #expect(alone.status == 2)
      #expect(alone.errors.contains("nothing to load"))
    }
  }

  @Test func underARootMessagesAndFixesNameTheFileOnDisk() async throws {
    try await withTemporaryDirectory { dir in
      let file = dir + "/etc/svc/svc.ini"
      try write("a = 1\n", to: file)
      #expect(chmod(file, 0o666) == 0)
      let run = try await runConfigDump(["--root", dir, "--app", "svc", "--check"])
      #expect(run.status == 1)
      #expect(
        run.output.contains(
          "\(file): error: refusing a file anyone can write (mode 0666); fix it with: chmod o-w \(file)"),
        "\(run.output)")
      #expect(!run.output.contains(" /etc/svc/svc.ini"))
    }
  }
}

/// `config-dump --check` warns of directories that look like the app's drop-in directory in the wrong
/// place, with the `mv` that fixes it.
@Suite struct MisplacedDropInTests {
  @Test(arguments: [
    "etc/svc/conf.d", "etc/svc/svc.d", "etc/svc/config.d", "etc/svc/svc.ini.d", "etc/svc.conf.d",
    "usr/lib/svc/conf.d", "home/user/.config/svc/conf.d",
  ])
  func aMisplacedDropInDirectoryIsAWarningWithTheMove(_ misplaced: String) async throws {
    try await withTemporaryDirectory { dir in
      try write("a = 1\n", to: dir + "/etc/svc/svc.ini")
      try write("b = 2\n", to: "\(dir)/\(misplaced)/50-b.ini")
      let run = try await runConfigDump(
        ["--root", dir, "--app", "svc", "--check"], environment: ["HOME": "/home/user"])
      #expect(run.status == 0)
      let base =
        misplaced.hasPrefix("usr")
        ? "usr/lib/svc" : misplaced.hasPrefix("home") ? "home/user/.config/svc" : "etc/svc"
      let wanted = "\(dir)/\(base)/svc.conf.d"
      #expect(
        run.output.contains(
          "\(dir)/\(misplaced): warning: looks like a drop-in directory of svc, but svc reads drop-ins only "
            + "from \(wanted)/, so nothing in it is loaded; fix it with: mv \(dir)/\(misplaced) \(wanted)\n"),
        "\(run.output)")
      #expect(run.output.contains("0 errors, 1 warning"))
    }
  }

  @Test func whenTheRightDirectoryExistsTooTheFixMovesTheFiles() async throws {
    try await withTemporaryDirectory { dir in
      try write("a = 1\n", to: dir + "/etc/svc/svc.conf.d/10-a.ini")
      try write("b = 2\n", to: dir + "/etc/svc/conf.d/50-b.ini")
      let run = try await runConfigDump(["--root", dir, "--app", "svc", "--check"])
      #expect(
        run.output.contains(
          "fix it with: move its files into \(dir)/etc/svc/svc.conf.d/ (mv \(dir)/etc/svc/conf.d/* "
            + "\(dir)/etc/svc/svc.conf.d/)"), "\(run.output)")
    }
  }

  @Test func theRightDirectoryAndOtherNamesAreNotWarnedOf() async throws {
    try await withTemporaryDirectory { dir in
      try write("a = 1\n", to: dir + "/etc/svc/svc.conf.d/10-a.ini")
      try write("x\n", to: dir + "/etc/svc/tls/cert.pem")
      try write("x = 1\n", to: dir + "/etc/other.conf.d/a.ini")
      let run = try await runConfigDump(["--root", dir, "--app", "svc", "--check"])
      #expect(run.status == 0)
      #expect(!run.output.contains(": warning:"), "\(run.output)")
      // Not a --check: the dump itself says nothing of it.
      try write("b = 2\n", to: dir + "/etc/svc/conf.d/50-b.ini")
      let dump = try await runConfigDump(["--root", dir, "--app", "svc"])
      #expect(!dump.errors.contains("drop-in"))
    }
  }
}

/// Machine-readable formats print a document even when there is nothing in it.
@Suite struct EmptyDocumentTests {
  @Test(arguments: ["{}", "[]", ""])
  func jsonAndPlistPrintAnEmptyDocument(_ content: String) async throws {
    try await withTemporaryDirectory { dir in
      let file = dir + (content == "[]" ? "/a.ini" : "/a.json")
      try write(content == "[]" ? "# nothing\n" : content.isEmpty ? "{}" : content, to: file)
      let json = try await runConfigDump([file, "--format", "json"])
      #expect(json.status == 0)
      #expect(json.output.trimmingCharacters(in: .whitespacesAndNewlines) == "{}", "\(json.output)")
      let plist = try await runConfigDump([file, "--format", "plist"])
      #expect(plist.status == 0)
      #expect(plist.output.contains("<dict/>") && plist.output.hasPrefix("<?xml"), "\(plist.output)")
      let env = try await runConfigDump([file, "--format", "env", "--env-prefix", "X"])
      #expect(env.status == 0 && env.output.isEmpty)
      let table = try await runConfigDump([file])
      #expect(table.status == 0 && table.output.isEmpty && table.errors.contains("no keys found"))
    }
  }

  @Test func anEmptyAppPrintsAnEmptyDocumentToo() async throws {
    try await withTemporaryDirectory { dir in
      let run = try await runConfigDump(["--root", dir, "--app", "nothing", "--format", "json"])
      #expect(run.status == 0)
      #expect(run.output == "{}\n", "\(run.output)")
      #expect(run.errors.contains("no configuration found for app 'nothing'"))
    }
  }

  /// A layout whose files are YAML, read by a config-dump without a YAML format: the files are named,
  /// with the tool that reads them; other names there (a package manager's leftovers) are not.
  @Test func yamlFilesThisBuildCannotReadAreNamed() async throws {
    try await withTemporaryDirectory { dir in
      try write("server:\n  port: 80\n", to: dir + "/etc/yapp/yapp.yaml")
      try write("server:\n  host: x\n", to: dir + "/etc/yapp/yapp.conf.d/10-host.yml")
      try write("[server]\n", to: dir + "/etc/yapp/yapp.ini.dpkg-old")
      let run = try await runConfigDump(["--root", dir, "--app", "yapp"])
      #expect(run.status == 0)
      #expect(run.errors.contains("no configuration found for app 'yapp'"), "\(run)")
      #expect(
        run.errors.contains(
          "not read: \(dir)/etc/yapp/yapp.yaml, \(dir)/etc/yapp/yapp.conf.d/10-host.yml; this config-dump has no "
            + "YAML format, config-dump-yaml has"), "\(run)")
      #expect(!run.errors.contains("dpkg-old"), "\(run)")
    }
  }

  /// The same YAML files beside a file this build reads: the values shown are printed, and a warning
  /// says they are not the whole configuration (on standard error, and in `--check`'s report).
  @Test func yamlFilesBesideReadableOnesAreNamedToo() async throws {
    try await withTemporaryDirectory { dir in
      try write("[server]\nport = 81\n", to: dir + "/etc/yapp/yapp.ini")
      try write("server:\n  host: x\n", to: dir + "/etc/yapp/yapp.conf.d/10-host.yml")
      let run = try await runConfigDump(["--root", dir, "--app", "yapp"])
      #expect(run.status == 0 && run.output.contains("81"), "\(run)")
      #expect(
        run.errors.contains(
          "config-dump: warning: not read: \(dir)/etc/yapp/yapp.conf.d/10-host.yml; this config-dump has no YAML"
        ),
        "\(run)")
      let check = try await runConfigDump(["--root", dir, "--app", "yapp", "--check"])
      #expect(check.output.contains("warning: not read: \(dir)/etc/yapp/yapp.conf.d/10-host.yml"), "\(check)")
      try FileManager.default.removeItem(atPath: dir + "/etc/yapp/yapp.conf.d/10-host.yml")
      let clean = try await runConfigDump(["--root", dir, "--app", "yapp"])
      #expect(clean.status == 0 && !clean.errors.contains("not read"), "\(clean)")
    }
  }
}
