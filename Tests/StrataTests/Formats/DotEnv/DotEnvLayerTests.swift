import Foundation
import Testing

@testable import Strata

/// dotenv files as main files, drop-ins, named files, `config-dump` arguments and write targets.
@Suite struct DotEnvLayerTests {
  @Test func anAppsEnvFileAndEnvDropInsAreLayers() throws {
    try withTemporaryDirectory { root in
      try write("[server]\nport = 8080\nhost = a\n", to: root + "/etc/demo/demo.ini")
      try write("SERVER__PORT=8443\n", to: root + "/etc/demo/demo.env")
      try write("export server.host=\"b\"\n", to: root + "/etc/demo/demo.conf.d/50-host.env")
      let snapshot = StandardLayout(app: "demo", root: root, environment: [:]).stack().load()
      #expect(snapshot.entry(forKey: "server.port")?.value.kind == .string("8443"))
      #expect(snapshot.entry(forKey: "server.port")?.origin.description == "/etc/demo/demo.env:1:14")
      #expect(
        snapshot.entry(forKey: "server.host")?.origin.description == "/etc/demo/demo.conf.d/50-host.env:1:20")
      #expect(snapshot.diagnostics.isEmpty, "\(snapshot.diagnostics)")
    }
  }

  @Test func aBrokenEnvFileIsAnErrorWithItsPositionAndTheRestLoads() throws {
    try withTemporaryDirectory { dir in
      try write("A=1\n", to: dir + "/a.env")
      try write("B='open\n", to: dir + "/b.env")
      let snapshot = LayerStack(layers: [FileLayer(scope: .user, files: [dir + "/a.env", dir + "/b.env"])])
        .load()
      #expect(snapshot.entry(forKey: "a") != nil)
      #expect(
        snapshot.diagnostics.map { "\($0.error.code) \($0.error.line):\($0.error.column)" } == [
          "unexpectedEnd 1:3"
        ])
    }
  }

  @Test func configDumpReadsEnvFilesAndTheDotenvInputFormat() async throws {
    try await withTemporaryDirectory { dir in
      try write("DB__POOL_SIZE=5 # per worker\n", to: dir + "/.env")
      try write("LOG_LEVEL=debug\n", to: dir + "/settings.local")
      let run = try await runConfigDump([
        "--format", "json", "--show-origin", dir + "/.env", "--input-format", "dotenv",
        dir + "/settings.local",
      ])
      #expect(run.status == 0, "\(run.errors)")
      #expect(run.output.contains(#""origin": "\#(dir)/.env:1:15""#), "\(run.output)")
      #expect(run.output.contains(#""value": "debug""#), "\(run.output)")
      let check = try await runConfigDump(["--check", dir + "/.env"])
      #expect(check.output.contains("checked 1 file, 1 key: 0 errors, 0 warnings"), "\(check.output)")
    }
  }

  @Test func writesToAnEnvFileKeepItsComments() throws {
    try withTemporaryDirectory { root in
      let user = root + "/home/user/.config/demo/demo.env"
      try write("# mine\nSERVER__PORT=1 # old\n", to: user)
      let store = SettingsStore(app: "demo", root: root, environment: [:])
      #expect(store.writeTarget == .file("/home/user/.config/demo/demo.env"))
      try store.write(SettingValue(.integer(2), origin: .runtime), forKey: "server.port")
      try store.write(SettingValue(.string("x y"), origin: .runtime), forKey: "server.host")
      #expect(
        try String(contentsOfFile: user, encoding: .utf8) == "# mine\nSERVER__PORT=2 # old\nserver.host=x y\n"
      )
      #expect(store.snapshot.entry(forKey: "server.port")?.value.kind == .string("2"))
    }
  }
}
