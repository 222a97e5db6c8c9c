import Foundation
import Testing

@testable import Strata

/// MySQL's `.cnf`, files whose names do not say their format, and drop-ins skipped for their names.
@Suite struct FileNamesTests {
  @Test func cnfFilesAreINIEverywhere() throws {
    try withTemporaryDirectory { root in
      try write("[mysqld]\nbind-address = 127.0.0.1\n", to: root + "/etc/mysql/my.cnf")
      try write("[mysqld]\nmax_connections = 200\n", to: root + "/etc/app/app.conf.d/50-server.cnf")
      let options = ParseOptions(resolvePath: { root + $0 })
      #expect(FormatRegistry.standard.format(forPath: "/etc/mysql/my.cnf") is INIFormat)
      let snapshot = LayerStack(
        layers: [
          FileLayer(scope: .user, files: ["/etc/mysql/my.cnf"]),
          FileLayer(scope: .system, files: [], dropInDirectory: "/etc/app/app.conf.d"),
        ], options: options
      ).load()
      #expect(snapshot.entry(forKey: "mysqld.bind-address")?.value.kind == .string("127.0.0.1"))
      #expect(
        snapshot.entry(forKey: "mysqld.max_connections")?.origin.path == "/etc/app/app.conf.d/50-server.cnf")
      #expect(snapshot.diagnostics.isEmpty)
    }
  }

  @Test func aFileNamedWithoutAFormatCanBeGivenOne() async throws {
    try await withTemporaryDirectory { dir in
      try write("[Definition]\nfailregex = ^bad <HOST>$\n", to: dir + "/jail.local")
      let unknown = LayerStack(layers: [FileLayer(scope: .user, files: [dir + "/jail.local"])]).load()
      #expect(unknown.diagnostics.first?.error.code == .unsupportedFormat)
      #expect(unknown.diagnostics.first?.error.message.contains("--input-format") == true)
      let named = LayerStack(layers: [
        FileLayer(scope: .user, files: [dir + "/jail.local"], format: INIFormat())
      ])
      .load()
      #expect(named.entry(forKey: "Definition.failregex")?.value.kind == .string("^bad <HOST>$"))
      #expect(try Formats.load(path: dir + "/jail.local", format: INIFormat())?.root.table?.count == 1)

      let run = try await runConfigDump([
        "--input-format", "ini", dir + "/jail.local", "--key", "Definition.failregex",
      ])
      #expect(run.status == 0 && run.output == "^bad <HOST>$\n", "\(run)")
      let bad = try await runConfigDump(["--input-format", "yaml", dir + "/jail.local"])
      #expect(bad.status == 2 && bad.errors.contains("unknown input format 'yaml'"))
      let refused = try await runConfigDump([dir + "/jail.local"])
      #expect(refused.status == 1 && refused.errors.contains("--input-format"))
    }
  }

  @Test func checkListsEveryDropInSkippedForItsName() async throws {
    try await withTemporaryDirectory { root in
      try FileManager.default.createDirectory(atPath: root + "/etc", withIntermediateDirectories: true)
      try FileManager.default.copyItem(
        atPath: repositoryRoot + "/Samples/demo/etc/demo", toPath: root + "/etc/demo")
      try write("read me\n", to: root + "/etc/demo/demo.conf.d/README")
      try write("[x]\n", to: root + "/etc/demo/demo.conf.d/10-tls.ini~")
      let check = try await runConfigDump(["--root", root, "--app", "demo", "--check"])
      #expect(check.status == 0, "\(check)")
      #expect(
        check.output.contains("/etc/demo/demo.conf.d/README: note: skipped: not a configuration file name"))
      #expect(check.output.contains("/etc/demo/demo.conf.d/10-tls.ini~: note: skipped: a hidden, backup"))
      #expect(check.output.contains("0 errors, 0 warnings, 2 skipped\n"))
      // A dump does not repeat notes on stderr.
      let dump = try await runConfigDump(["--root", root, "--app", "demo"])
      #expect(!dump.errors.contains("skipped"))
    }
  }
}
