import Foundation
import Testing

@testable import Strata

enum OutputLogLevel: String, Codable, CaseIterable, Sendable { case debug, info, warning, error }

struct LevelSettings: SettingsGroup {
  static var section: String { "log" }
  @Setting var level = OutputLogLevel.info
}

/// What `config-dump` prints is readable, secrets are hidden by their names, and small mistakes get
/// clear messages and exit statuses.
@Suite struct ReadableOutputTests {
  @Test func keysNamedLikeSecretsAreRedactedEverywhereWithoutASchema() async throws {
    try await withTemporaryDirectory { dir in
      let json =
        #"{"db": {"password": "hunter2", "user": "app", "apiKey": "k-9x", "keyboard": "us"}, "#
        + #""aws": {"secret_access_key": "AKIA-s3"}, "auth": {"token": "t0k"}}"#
      try write(json, to: dir + "/app.json")
      var seen = ""
      for format in ["table", "json", "ini", "plist"] {
        for extra in [[], ["--show-origin"], ["--show-shadowed"]] {
          seen += try await runConfigDump([dir + "/app.json", "--format", format] + extra).output
        }
      }
      seen += try await runConfigDump([dir + "/app.json", "--format", "env", "--env-prefix", "APP"]).output
      for key in ["db.password", "db.apiKey", "aws.secret_access_key", "auth.token"] {
        seen += try await runConfigDump([dir + "/app.json", "--key", key]).output
      }
      for secret in ["hunter2", "k-9x", "AKIA-s3", "t0k"] {
        #expect(!seen.contains(secret), "\(secret) leaked")
      }
      #expect(seen.contains("app") && seen.contains("us"))  // ordinary keys stay visible
      let shown = try await runConfigDump([dir + "/app.json", "--key", "db.password", "--show-secrets"])
      #expect(shown.output == "hunter2\n")
      #expect(try await runConfigDump(["--help"]).output.contains("Secrets are:"))
    }
    #expect(SecretNames.isSecret(key: "db.password") && SecretNames.isSecret(key: "x.PRIVATE_KEY"))
    #expect(SecretNames.isSecret(key: "smtp.passwd") && SecretNames.isSecret(key: "oauth.clientSecret"))
    #expect(!SecretNames.isSecret(key: "ui.keyboard") && !SecretNames.isSecret(key: "monkey"))
    #expect(!SecretNames.isSecret(key: "tls.keyFile") && !SecretNames.isSecret(key: "nlp.tokenizer"))
  }

  @Test func theSchemaListsAnEnumsCasesAndCheckRejectsOthers() async throws {
    try await withTemporaryDirectory { dir in
      let store = SettingsStore.inMemory()
      let settings = LevelSettings(store: store)
      let exported = store.schema.jsonSchema(title: "t")
      let cases = exported.value(atComponents: ["properties", "log", "properties", "level", "enum"])
      #expect(
        cases?.kind
          == .array(
            ["debug", "info", "warning", "error"].map { SettingValue(.string($0), origin: .codeDefault) }))
      try write(
        String(decoding: try JSONFormat().serialize(exported), as: UTF8.self), to: dir + "/schema.json")
      try write("[log]\nlevel = loud\n", to: dir + "/app.ini")
      let check = try await runConfigDump([dir + "/app.ini", "--schema", dir + "/schema.json", "--check"])
      #expect(check.status == 1)
      #expect(
        check.output.contains(
          "\(dir)/app.ini:2:9: error: expected one of debug, info, warning, error for log.level, found \"loud\""
        ),
        "\(check.output)")
      try write("[log]\nlevel = warning\n", to: dir + "/app.ini")
      #expect(
        try await runConfigDump([dir + "/app.ini", "--schema", dir + "/schema.json", "--check"]).status == 0)
      withExtendedLifetime(settings) {}
    }
  }

  @Test func theTableAlignsWideCharactersAndShowsBlanks() async throws {
    try await withTemporaryDirectory { dir in
      try write(
        #"{"名前": "東京", "ab": "x", "empty": "", "padded": "  x ", "q": "  \"q\" "}"#, to: dir + "/app.json")
      let run = try await runConfigDump([dir + "/app.json"])
      let lines = run.output.split(separator: "\n").map(String.init)
      // Every value starts at the same display column.
      let valueColumns = lines.map { line -> Int in
        let key = line.prefix { $0 != " " }
        return DisplayWidth.of(String(key)) + line.dropFirst(key.count).prefix { $0 == " " }.count
      }
      #expect(Set(valueColumns).count == 1, "\(run.output)")
      #expect(lines.contains { $0.hasPrefix("empty") && $0.hasSuffix(#""""#) })
      #expect(lines.contains { $0.hasSuffix(#""  x ""#) })
      #expect(lines.contains { $0.hasSuffix(#""  \"q\" ""#) })
      #expect(DisplayWidth.of("東京") == 4 && DisplayWidth.of("e\u{301}") == 1)
    }
  }

  @Test func longValuesAreCutToTheTerminalWidthOnlyWhenAsked() async throws {
    let long = String(repeating: "x", count: 200)
    let snapshot = Snapshot(
      generation: 1,
      sources: [
        Snapshot.Source(
          scope: .system,
          document: Document(
            path: "p",
            root: SettingValue(
              .table(SettingTable([("k", SettingValue(.string(long), origin: .codeDefault))])),
              origin: .codeDefault))
        )
      ])
    var options = DumpOptions()
    options.maxWidth = 40
    let cut = try Dump.render(snapshot, options: options)
    #expect(cut.split(separator: "\n").allSatisfy { DisplayWidth.of(String($0)) <= 40 }, "\(cut)")
    #expect(cut.contains("…"))
    options.maxWidth = nil
    #expect(try Dump.render(snapshot, options: options).contains(long))
    // Piped, config-dump never cuts.
    try await withTemporaryDirectory { dir in
      try write(#"{"k": "\#(long)"}"#, to: dir + "/app.json")
      #expect(
        try await runConfigDump([dir + "/app.json"], environment: ["COLUMNS": "40"]).output.contains(long))
    }
  }

  @Test func smallMistakesGetClearMessagesAndStatuses() async throws {
    try await withTemporaryDirectory { dir in
      try write("{\"a\": 1}", to: dir + "/a.json")
      try FileManager.default.createDirectory(atPath: dir + "/conf", withIntermediateDirectories: true)
      let directory = try await runConfigDump([dir + "/conf"])
      #expect(directory.status == 1 && directory.errors.contains("not a regular file: a directory"))
      #expect(directory.output.isEmpty)  // no empty table header after a failed load
      let rootFile = try await runConfigDump(["--root", dir + "/a.json", "--app", "x"])
      #expect(rootFile.status == 2 && rootFile.errors.contains("--root: not a directory"))
      let noApp = try await runConfigDump(["--root", dir, "--app", "nosuchapp"])
      #expect(noApp.status == 0 && noApp.errors.contains("no configuration found for app 'nosuchapp'"))
      #expect(noApp.errors.contains("/etc/nosuchapp/nosuchapp.{plist,json,ini,env,toml}"))
      let missing = try await runConfigDump(["--key-per-file", dir + "/missing"])
      #expect(missing.status == 1 && missing.errors.contains("--key-per-file: no such directory"))
      let one = try await runConfigDump([dir + "/a.json", "--check"])
      #expect(one.output.hasSuffix("checked 1 file, 1 key: 0 errors, 0 warnings\n"))
      let big = try await runConfigDump([dir + "/a.json", "--max-file-size", "3"])
      #expect(big.errors.contains("--max-file-size"))
    }
  }

  @Test func anUnknownKeyWarningPointsAtTheKey() async throws {
    try await withTemporaryDirectory { dir in
      try write("{\n  \"server\": {\"prot\": 8080}\n}\n", to: dir + "/app.json")
      let check = try await runConfigDump([
        dir + "/app.json", "--schema", repositoryRoot + "/Samples/demo/demo.schema.json", "--check",
      ])
      #expect(
        check.output.contains("\(dir)/app.json:2:14: warning: unknown key 'server.prot'"), "\(check.output)")
    }
  }

  @Test func originsInINIOutputAreCommentsAndEmptyTablesStay() async throws {
    try await withTemporaryDirectory { dir in
      try write(#"{"a": {}, "b": {"c": 1}}"#, to: dir + "/app.json")
      let ini = try await runConfigDump([dir + "/app.json", "--format", "ini", "--show-origin"])
      #expect(ini.output.contains("c = 1  ; \(dir)/app.json:1:22\n"), "\(ini.output)")
      #expect(try parse(ini.output, as: INIFormat()).root.value(at: "b.c")?.kind == .string("1"))
      let json = try await runConfigDump([dir + "/app.json", "--format", "json", "--show-origin"])
      let tree = try parse(json.output, as: JSONFormat()).root
      #expect(tree.value(at: "a")?.table?.isEmpty == true)
      #expect(tree.value(atComponents: ["b", "c", "value"])?.kind == .integer(1))
    }
  }

  /// JSON has no infinity or NaN: a dump writes them as strings rather than failing the whole file, in
  /// every JSON view (the tree, with origins, one key, `--watch`'s lines use the same writer), and
  /// the other formats print them as their own syntax has them.
  @Test func infinityAndNaNPrintInEveryFormatWithoutFailingTheDump() async throws {
    try await withTemporaryDirectory { dir in
      try write("a = inf\nb = -inf\nc = nan\nd = 1.5\n[t]\nx = [inf, 2.0]\n", to: dir + "/app.toml")
      let json = try await runConfigDump([dir + "/app.toml", "--format", "json"])
      #expect(json.status == 0, "\(json.errors)")
      let parsed = try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [String: Any]
      #expect(parsed?["a"] as? String == "inf" && parsed?["b"] as? String == "-inf")
      #expect(parsed?["c"] as? String == "nan" && parsed?["d"] as? Double == 1.5)
      #expect((parsed?["t"] as? [String: Any])?["x"] as? [AnyHashable] == ["inf", 2.0])
      let origins = try await runConfigDump([dir + "/app.toml", "--format", "json", "--show-origin"])
      #expect(origins.status == 0 && origins.output.contains(#""value": "-inf""#), "\(origins.errors)")
      let one = try await runConfigDump([dir + "/app.toml", "--key", "c", "--format", "json"])
      #expect(one.status == 0 && one.output.hasPrefix(#""nan""#), "\(one.output) \(one.errors)")
      for format in ["table", "ini", "plist"] {
        let dump = try await runConfigDump([dir + "/app.toml", "--format", format])
        #expect(dump.status == 0 && dump.output.contains("-inf") && dump.output.contains("nan"), "\(format)")
      }
    }
    // Writing a JSON file still refuses them: the file would read back as other values.
    let tree = SettingValue(
      .table(SettingTable([("a", SettingValue(.double(.infinity), origin: .runtime))])), origin: .runtime)
    #expect(throws: StrataError.self) { try JSONFormat().serialize(tree) }
  }
}
