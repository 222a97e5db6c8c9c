import Foundation
import Testing

@testable import Strata

/// Declarations that `config-dump --check --schema` reports: renamed keys and required settings.
struct DeclaredServerSettings: SettingsGroup {
  static var section: String { "server" }
  @Setting(key: "max_connections", aliases: ["maxConn"]) var maxConnections = 10
  @Setting(help: "Where the database is") var databaseURL: URL
  @Setting var port = 8080
}

@Suite struct ConfigDumpDeclarationTests {
  /// Writes the JSON Schema of `DeclaredServerSettings` to `dir/schema.json`.
  func writeSchema(in dir: String) throws -> String {
    let group = DeclaredServerSettings.inMemory()
    let schema = group.store.schema.jsonSchema(title: "declared", environmentPrefix: "DEMO")
    let path = dir + "/schema.json"
    try write(String(decoding: try JSONFormat().serialize(schema), as: UTF8.self), to: path)
    return path
  }

  @Test func theSchemaCarriesRequiredSettingsAndAliasesBothWays() throws {
    let group = DeclaredServerSettings.inMemory()
    let exported = group.store.schema.jsonSchema(title: "declared")
    let url = try #require(exported.value(at: "properties.server.properties.databaseURL"))
    #expect(url.value(at: "x-strata-required")?.kind == .bool(true))
    let limit = try #require(exported.value(at: "properties.server.properties.max_connections"))
    #expect(
      limit.value(at: "x-strata-aliases")?.kind
        == .array([SettingValue(.string("server.maxConn"), origin: .codeDefault)]))
    let imported = try SettingsSchema(jsonSchema: exported)
    #expect(imported.entry(forKey: "server.databaseURL")?.isRequired == true)
    #expect(imported.entry(forKey: "server.port")?.isRequired == false)
    #expect(imported.entry(forKey: "server.max_connections")?.aliases == ["server.maxConn"])
    #expect(imported.declares("server.maxConn"))
  }

  @Test func checkReportsOldKeysAndMissingRequiredSettings() async throws {
    try await withTemporaryDirectory { dir in
      let schema = try writeSchema(in: dir)
      try write("[server]\nmaxConn = 50\n", to: dir + "/root/etc/demo/demo.ini")
      let check = try await runConfigDump([
        "--root", dir + "/root", "--app", "demo", "--schema", schema, "--check",
      ])
      #expect(check.status == 1)
      #expect(
        check.output.contains(
          "/etc/demo/demo.ini:2:1: warning: 'server.maxConn' is deprecated; rename it to 'server.max_connections'"
        ))
      #expect(
        check.output.contains(
          "error: required setting 'server.databaseURL' has no value; set it in /etc/demo/demo.ini, "
            + "/home/user/.config/demo/demo.{plist,json,ini,env,toml} or DEMO_SERVER_DATABASE_URL"))
      #expect(!check.output.contains("unknown key"))
      let dump = try await runConfigDump(
        ["--root", dir + "/root", "--app", "demo", "--schema", schema, "--key", "server.max_connections"],
        environment: ["DEMO_SERVER_DATABASE_URL": "postgres://db"])
      #expect(dump.output == "50\n")
      let supplied = try await runConfigDump(
        ["--root", dir + "/root", "--app", "demo", "--schema", schema, "--check"],
        environment: ["DEMO_SERVER_DATABASE_URL": "postgres://db"])
      #expect(!supplied.output.contains("required setting"))
    }
  }

  @Test func checkReportsAnOldKeySetBesideTheNewOne() async throws {
    try await withTemporaryDirectory { dir in
      let schema = try writeSchema(in: dir)
      try write(
        "[server]\nmax_connections = 60\nmaxConn = 50\ndatabaseURL = postgres://db\n", to: dir + "/a.ini")
      let check = try await runConfigDump([dir + "/a.ini", "--schema", schema, "--check"])
      #expect(check.status == 0, "\(check.output)")
      #expect(
        check.output.contains(
          "\(dir)/a.ini:3:1: warning: 'server.maxConn' is ignored: 'server.max_connections' is set too; "
            + "remove the old name"))
    }
  }
}
