import Foundation
import Testing

@testable import Strata

/// `config-dump --schema` with the schema `Samples/SettingsExample` exports.
@Suite struct ConfigDumpSchemaTests {
  let demo = ["--root", "Samples/demo", "--app", "demo", "--schema", "Samples/demo/demo.schema.json"]

  @Test func theCommittedSchemaMatchesTheSampleDeclarations() async throws {
    let example = (configDumpPath as NSString).deletingLastPathComponent + "/settings-example"
    let output = Data(try await Spawn.run(example, ["--print-schema"], directory: repositoryRoot).output.utf8)
    let committed = try Data(
      contentsOf: URL(fileURLWithPath: repositoryRoot + "/Samples/demo/demo.schema.json"))
    #expect(
      output == committed,
      "regenerate with: swift run settings-example --print-schema > Samples/demo/demo.schema.json")
  }

  @Test func valuesAreTypedAndSecretsRedacted() async throws {
    let run = try await runConfigDump(
      demo + ["--format", "json"], environment: ["DEMO_SERVER_ADMIN_TOKEN": "hunter2"])
    #expect(run.status == 0, "\(run.errors)")
    #expect(!run.output.contains("hunter2"))
    let object = try #require(JSONSerialization.jsonObject(with: Data(run.output.utf8)) as? [String: Any])
    let server = try #require(object["server"] as? [String: Any])
    #expect(server["port"] as? Int == 8443)  // "8443" in the INI file, an integer in the schema
    #expect(server["adminToken"] as? String == "<redacted>")
    let shown = try await runConfigDump(
      demo + ["--key", "server.adminToken", "--show-secrets"],
      environment: ["DEMO_SERVER_ADMIN_TOKEN": "hunter2"])
    #expect(shown.output == "hunter2\n")
  }

  @Test func defaultsFillUnsetKeysAndBadValuesFallBack() async throws {
    try await withTemporaryDirectory { dir in
      try write("[server]\nport = 80a\nprot = 1\n", to: dir + "/etc/demo/demo.ini")
      let run = try await runConfigDump([
        "--root", dir, "--app", "demo", "--schema", repositoryRoot + "/Samples/demo/demo.schema.json",
        "--show-origin",
      ])
      #expect(run.status == 1)
      #expect(run.output.contains("server.port"))
      let port =
        run.output.split(separator: "\n").first { $0.hasPrefix("server.port ") }.map(String.init) ?? ""
      #expect(port.contains(" 8080 ") && port.hasSuffix("default"))
      #expect(
        run.errors.contains("/etc/demo/demo.ini:2:8: error: expected Int for server.port, found \"80a\""))
      let check = try await runConfigDump([
        "--root", dir, "--app", "demo", "--schema", repositoryRoot + "/Samples/demo/demo.schema.json",
        "--check",
      ])
      #expect(check.status == 1)
      #expect(
        check.output.contains(
          "/etc/demo/demo.ini:3:1: warning: unknown key 'server.prot' (did you mean 'server.port'?)"))
    }
  }

  @Test func aMissingOrBrokenSchemaIsAUsageError() async throws {
    let missing = try await runConfigDump(["--app", "demo", "--schema", "/nope.json"])
    #expect(missing.status == 2)
    #expect(missing.errors.contains("--schema: no such file: /nope.json"))
    try await withTemporaryDirectory { dir in
      try write("{\"type\": \"object\"}", to: dir + "/s.json")
      let broken = try await runConfigDump(["--app", "demo", "--schema", dir + "/s.json"])
      #expect(broken.status == 2)
      #expect(broken.errors.contains("not a Strata JSON Schema"))
    }
  }
}
