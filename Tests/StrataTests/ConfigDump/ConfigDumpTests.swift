import Foundation
import Testing

@testable import Strata

/// Runs the built binary as a user would, on the bundled demo tree and on temporary files.
@Suite struct ConfigDumpTests {
  let demo = ["--root", "Samples/demo", "--app", "demo"]

  /// Rows of the table output: key → the remaining columns.
  func rows(_ output: String) -> [String: [String]] {
    var result: [String: [String]] = [:]
    for line in output.split(separator: "\n").dropFirst() where !line.hasPrefix(" ") {
      let cells = line.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
      result[cells[0]] = Array(cells.dropFirst())
    }
    return result
  }

  @Test func demoTableShowsEveryLayerWithOrigins() async throws {
    let run = try await runConfigDump(demo + ["--show-origin"])
    #expect(run.status == 0, "\(run.errors)")
    #expect(run.errors.isEmpty)
    #expect(run.output.hasPrefix("KEY"))
    let table = rows(run.output)
    #expect(table["server.host"] == ["0.0.0.0", "/etc/demo/demo.ini:5:8"])
    #expect(table["server.port"] == ["8443", "/etc/demo/demo.ini:6:8"])
    #expect(table["server.maxConnections"] == ["4096", "/etc/demo/demo.conf.d/20-limits.json:3:23"])
    #expect(table["server.requestTimeout"] == ["30s", "/usr/lib/demo/demo.plist:15:3"])
    #expect(table["server.tls.enabled"] == ["yes", "/etc/demo/demo.conf.d/10-tls.ini:2:11"])
    #expect(table["log.level"] == ["debug", "/home/user/.config/demo/demo.json:3:14"])
    #expect(table["database.pool_size"] == ["10", "/usr/lib/demo/demo.plist:29:3"])
    #expect(table["releasedAt"] == ["2026-11-01T09:00:00Z", "/usr/lib/demo/demo.plist:32:2"])
    #expect(table["server.allowed_origins"]?.first == "[https://example.com,")
    // The vendor telemetry drop-in is masked by /etc/demo/demo.conf.d/50-telemetry.json -> /dev/null.
    #expect(!run.output.contains("telemetry"))
  }

  @Test func environmentOverridesAndShadowedValues() async throws {
    let run = try await runConfigDump(
      demo + ["--show-origin", "--show-shadowed"], environment: ["DEMO_SERVER_PORT": "9000"])
    #expect(run.status == 0, "\(run.errors)")
    let lines = run.output.split(separator: "\n").map(String.init)
    let index = try #require(lines.firstIndex { $0.hasPrefix("server.port ") })
    #expect(lines[index].hasSuffix("env:DEMO_SERVER_PORT"))
    #expect(lines[index].contains("9000"))
    #expect(lines[index + 1].contains("shadows 8443") && lines[index + 1].hasSuffix("/etc/demo/demo.ini:6:8"))
    #expect(
      lines[index + 2].contains("shadows 8080") && lines[index + 2].hasSuffix("/usr/lib/demo/demo.plist:11:3")
    )
  }

  @Test func jsonFormatPrintsTheMergedTree() async throws {
    let run = try await runConfigDump(demo + ["--format", "json"])
    #expect(run.status == 0, "\(run.errors)")
    let object = try #require(JSONSerialization.jsonObject(with: Data(run.output.utf8)) as? [String: Any])
    let server = try #require(object["server"] as? [String: Any])
    #expect(server["port"] as? String == "8443")  // INI values are strings
    #expect(server["maxConnections"] as? Int == 4096)
    #expect(object["releasedAt"] as? String == "2026-11-01T09:00:00Z")
    #expect((server["allowed_origins"] as? [String])?.count == 2)
  }

  @Test func jsonWithOriginsWrapsEachLeaf() async throws {
    let run = try await runConfigDump(demo + ["--format", "json", "--show-origin", "--show-shadowed"])
    #expect(run.status == 0, "\(run.errors)")
    let object = try #require(JSONSerialization.jsonObject(with: Data(run.output.utf8)) as? [String: Any])
    let port = try #require((object["server"] as? [String: Any])?["port"] as? [String: Any])
    #expect(port["value"] as? String == "8443")
    #expect(port["origin"] as? String == "/etc/demo/demo.ini:6:8")
    let shadowed = try #require(port["shadowed"] as? [[String: Any]])
    #expect(shadowed.first?["value"] as? Int == 8080)
    #expect(shadowed.first?["origin"] as? String == "/usr/lib/demo/demo.plist:11:3")
  }

  @Test func iniAndPlistOutputParseBackToTheSameTree() async throws {
    let json = try await runConfigDump(demo + ["--format", "json"])
    let reference = try JSONFormat().parse(Array(json.output.utf8), path: "json", options: ParseOptions())
    for format in ["ini", "plist"] {
      let run = try await runConfigDump(demo + ["--format", format])
      #expect(run.status == 0, "\(format): \(run.errors)")
      let parsed = try FormatRegistry.standard.format(named: format)!.parse(
        Array(run.output.utf8), path: format, options: ParseOptions())
      let referenceSnapshot = Snapshot(
        generation: 1, sources: [Snapshot.Source(scope: .system, document: reference)])
      let parsedSnapshot = Snapshot(
        generation: 1, sources: [Snapshot.Source(scope: .system, document: parsed)])
      // INI writes a table's plain values before its sections, so only the order may differ there.
      if format == "ini" {
        #expect(Set(parsedSnapshot.keys) == Set(referenceSnapshot.keys))
      } else {
        #expect(parsedSnapshot.keys == referenceSnapshot.keys, "\(format)")
      }
      for key in referenceSnapshot.keys {
        let expected = referenceSnapshot.entry(forKey: key).map { ValueText.plain($0.value) }
        let actual = parsedSnapshot.entry(forKey: key).map { ValueText.plain($0.value) }
        #expect(actual == expected, "\(format): \(key)")
      }
    }
  }

  @Test func envFormatCanBeSourcedByAShell() async throws {
    try await withTemporaryDirectory { dir in
      let run = try await runConfigDump(demo + ["--format", "env"])
      #expect(run.status == 0, "\(run.errors)")
      #expect(run.output.contains("export DEMO_SERVER_MAX_CONNECTIONS=4096\n"))
      try write(run.output, to: dir + "/env.sh")
      let text = try await Spawn.run(
        "/bin/sh",
        ["-c", ". \(dir)/env.sh && printf '%s|%s' \"$DEMO_DATABASE_URL\" \"$DEMO_SERVER_ALLOWED_ORIGINS\""]
      ).output
      #expect(text == "postgres://db.internal:5432/demo|https://example.com, https://admin.example.com")
    }
  }

  @Test func keyPrintsOneValueOrExitsThree() async throws {
    let port = try await runConfigDump(demo + ["--key", "server.port"])
    #expect(port.status == 0)
    #expect(port.output == "8443\n")
    let withOrigin = try await runConfigDump(demo + ["--key", "server.port", "--show-origin"])
    #expect(withOrigin.output == "8443\t/etc/demo/demo.ini:6:8\n")
    let subtree = try await runConfigDump(demo + ["--key", "server.tls"])
    #expect(subtree.status == 0)
    #expect(rows(subtree.output)["server.tls.certPath"] == ["/etc/demo/tls/cert.pem"])
    let typo = try await runConfigDump(demo + ["--key", "server.prot"])
    #expect(typo.status == 3)
    #expect(typo.output.isEmpty)
    #expect(typo.errors == "config-dump: key not found: server.prot (did you mean server.port?)\n")
    let wrongCase = try await runConfigDump(demo + ["--key", "Server.Port"])
    #expect(wrongCase.status == 3)
    #expect(wrongCase.errors.contains("did you mean server.port? keys are case-sensitive"))
  }

  @Test func checkPassesOnTheDemoAndReportsUnknownVariables() async throws {
    let run = try await runConfigDump(demo + ["--check"], environment: ["DEMO_SERVR__PORT": "1"])
    #expect(run.status == 0, "\(run.output)")
    #expect(
      run.output.contains(
        "env:DEMO_SERVR__PORT: warning: environment variable DEMO_SERVR__PORT matches no known setting"))
    #expect(run.output.hasSuffix("0 errors, 1 warning\n"))
  }

  @Test func brokenFilesAreReportedWithPositionsAndTheRestStillPrints() async throws {
    try await withTemporaryDirectory { dir in
      try write("[server]\nport = 80\n", to: dir + "/a.ini")
      try write("{\n  \"server\": {\"host\": \"x\",}\n}\n", to: dir + "/b.json")
      try write("{\"log\": {\"level\": \"warn\"}}", to: dir + "/c.json")
      let run = try await runConfigDump(["a.ini", "b.json", "c.json", "missing.json"], in: dir)
      #expect(run.status == 1)
      #expect(rows(run.output)["server.port"] == ["80"])
      #expect(rows(run.output)["log.level"] == ["warn"])
      let errors = run.errors.split(separator: "\n").map(String.init)
      #expect(errors.count == 2)
      #expect(errors[0].hasPrefix("b.json:2:26: error: "))
      #expect(errors[1] == "missing.json: error: no such file")
      let check = try await runConfigDump(["--check", "a.ini", "b.json"], in: dir)
      #expect(check.status == 1)
      #expect(check.output.hasPrefix("b.json:2:26: error: "))
      #expect(check.output.hasSuffix("1 error, 0 warnings\n"))
    }
  }

  @Test func envPrefixAddsAnEnvironmentLayerOverFiles() async throws {
    try await withTemporaryDirectory { dir in
      try write("[server]\nmaxConnections = 80\n", to: dir + "/a.ini")
      let run = try await runConfigDump(
        ["--env-prefix", "APP", "--show-origin", "a.ini"], environment: ["APP_SERVER_MAX_CONNECTIONS": "12"],
        in: dir)
      #expect(run.status == 0)
      #expect(rows(run.output)["server.maxConnections"] == ["12", "env:APP_SERVER_MAX_CONNECTIONS"])
    }
  }

  @Test(arguments: [
    ([], "nothing to load"),
    (["--format", "xml", "a.json"], "unknown format 'xml'"),
    (["--bogus", "a.json"], "unknown option '--bogus'"),
    (["--app"], "--app needs a value"),
    (["--root", "Samples/demo", "--key-per-file", "d"], "--root goes with --app or FILE arguments"),
    (["--app", "demo", "--root", "/does/not/exist"], "--root: no such directory: /does/not/exist"),
    (["--app", "../x"], "--app takes an app name"),
    (["--max-file-size", "lots", "a.json"], "--max-file-size takes a positive number"),
    (["--check", "--key", "a", "a.json"], "cannot be used together"),
  ])
  func usageErrorsExitTwo(arguments: [String], message: String) async throws {
    let run = try await runConfigDump(arguments)
    #expect(run.status == 2)
    #expect(run.output.isEmpty)
    #expect(run.errors.contains(message), "\(run.errors)")
    #expect(run.errors.contains("config-dump --help"))
  }

  @Test func aHugeUnknownOptionIsQuotedByItsStartOnly() async throws {
    let option = "--" + Array(repeating: "a", count: 20_000).joined(separator: ".")
    let run = try await runConfigDump([option, "1"])
    #expect(run.status == 2)
    #expect(run.errors.contains("unknown option '--a.a.a"), "\(run.errors.prefix(300))")
    #expect(run.errors.contains("…'"))
    #expect(run.errors.utf8.count < 300, "\(run.errors.prefix(300))")
  }

  @Test func helpDocumentsEverything() async throws {
    let run = try await runConfigDump(["--help"])
    #expect(run.status == 0)
    for word in [
      "--app", "--root", "--home", "--env-prefix", "--format", "--input-format", "--show-origin",
      "--show-shadowed", "--no-truncate", "--key", "--key-per-file", "--max-file-size", "--schema",
      "--show-secrets", "--watch", "--check", "-h, --help", "Exit status",
    ] {
      #expect(run.output.contains(word), "\(word)")
    }
  }

  @Test func envFormatWithoutAPrefixIsAnError() async throws {
    try await withTemporaryDirectory { dir in
      try write("{\"a\": 1}", to: dir + "/a.json")
      let run = try await runConfigDump(["--format", "env", "a.json"], in: dir)
      #expect(run.status == 2)  // a usage error: nothing is loaded
      #expect(run.errors.contains("needs a variable prefix"))
    }
  }
}
