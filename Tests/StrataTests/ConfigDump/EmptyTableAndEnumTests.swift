import Foundation
import Testing

@testable import Strata

enum OutputPriority: Int, Codable, CaseIterable, Sendable { case low = 1, normal = 5, high = 9 }

struct PrioritySettings: SettingsGroup {
  static var section: String { "queue" }
  @Setting var priority = OutputPriority.normal
  @Setting(traits: .secret) var level = OutputLogLevel.info
  @Setting var fallbackLevel: OutputLogLevel? = nil
}

/// Empty tables under `--key`, enums of numbers in the schema, and `--format env` without a prefix.
@Suite struct EmptyTableAndEnumTests {
  @Test func emptyTablesBelowAKeyStayInEveryJSONForm() async throws {
    try await withTemporaryDirectory { dir in
      try write(#"{"a": {}, "b": {"c": 1, "d": {}, "e": {"f": {}}}}"#, to: dir + "/app.json")
      for extra in [[], ["--show-origin"], ["--show-shadowed"], ["--show-origin", "--show-shadowed"]] {
        let whole = try await runConfigDump([dir + "/app.json", "--format", "json"] + extra)
        let tree = try parse(whole.output, as: JSONFormat()).root
        #expect(tree.value(at: "a")?.table?.isEmpty == true, "\(extra): \(whole.output)")
        #expect(
          tree.value(atComponents: ["b", "e", "f"])?.table?.isEmpty == true, "\(extra): \(whole.output)")
        let one = try await runConfigDump([dir + "/app.json", "--format", "json", "--key", "b"] + extra)
        #expect(one.status == 0, "\(one.errors)")
        let subtree = try parse(one.output, as: JSONFormat()).root
        #expect(subtree.value(at: "d")?.table?.isEmpty == true, "\(extra): \(one.output)")
        #expect(subtree.value(atComponents: ["e", "f"])?.table?.isEmpty == true, "\(extra): \(one.output)")
        let leaf = extra.isEmpty ? subtree.value(at: "c") : subtree.value(atComponents: ["c", "value"])
        #expect(leaf?.kind == .integer(1), "\(extra): \(one.output)")
      }
      // An empty table asked for by name prints as one.
      let empty = try await runConfigDump([
        dir + "/app.json", "--format", "json", "--key", "a", "--show-origin",
      ])
      #expect(empty.status == 0 && empty.output.filter { !$0.isWhitespace } == "{}", "\(empty.output)")
    }
  }

  @Test func anEnumOfNumbersIsListedAsNumbersAndOtherNumbersAreRejected() async throws {
    try await withTemporaryDirectory { dir in
      let store = SettingsStore.inMemory()
      let settings = PrioritySettings(store: store)
      let exported = store.schema.jsonSchema(title: "t")
      let property = try #require(
        exported.value(atComponents: ["properties", "queue", "properties", "priority"]))
      #expect(
        property.value(at: "enum")?.kind
          == .array([1, 5, 9].map { SettingValue(.integer($0), origin: .codeDefault) }))
      try write(
        String(decoding: try JSONFormat().serialize(exported), as: UTF8.self), to: dir + "/schema.json")
      let optional = exported.value(atComponents: [
        "properties", "queue", "properties", "fallbackLevel", "enum",
      ])
      #expect(
        optional?.kind
          == .array(
            ["debug", "info", "warning", "error"].map { SettingValue(.string($0), origin: .codeDefault) }))
      // Read back, the schema keeps the cases.
      let reread = try SettingsSchema(
        jsonSchema: try parse(String(contentsOfFile: dir + "/schema.json", encoding: .utf8), as: JSONFormat())
          .root)
      #expect(reread.entries.first { $0.key == "queue.priority" }?.allowedValues == ["1", "5", "9"])

      try write("[queue]\npriority = 3\nlevel = s3cr3t-level\nfallbackLevel = loud\n", to: dir + "/app.ini")
      let check = try await runConfigDump([dir + "/app.ini", "--schema", dir + "/schema.json", "--check"])
      #expect(check.status == 1)
      #expect(
        check.output.contains(
          "\(dir)/app.ini:2:12: error: expected one of 1, 5, 9 for queue.priority, found \"3\""),
        "\(check.output)")
      // A secret enum's bad value is named by its key, never shown.
      #expect(
        check.output.contains(
          "\(dir)/app.ini:3:9: error: expected one of debug, info, warning, error for queue.level"),
        "\(check.output)")
      #expect(!check.output.contains("s3cr3t"), "\(check.output)")
      #expect(
        check.output.contains(
          "\(dir)/app.ini:4:17: error: expected one of debug, info, warning, error for queue.fallbackLevel, found \"loud\""
        ),
        "\(check.output)")
      try write("[queue]\npriority = 9\nlevel = error\nfallbackLevel = debug\n", to: dir + "/app.ini")
      let good = try await runConfigDump([dir + "/app.ini", "--schema", dir + "/schema.json", "--check"])
      #expect(good.status == 0, "\(good.output)")
      withExtendedLifetime(settings) {}
    }
  }

  @Test func theEnvFormatWithoutAPrefixIsAUsageError() async throws {
    try await withTemporaryDirectory { dir in
      try write(#"{"a": 1}"#, to: dir + "/app.json")
      for extra in [[], ["--key", "a"]] {
        let run = try await runConfigDump([dir + "/app.json", "--format", "env"] + extra)
        #expect(run.status == 2, "\(run.errors)")
        #expect(run.errors.contains("--format env needs a variable prefix"), "\(run.errors)")
        #expect(run.output.isEmpty)
      }
      let prefixed = try await runConfigDump([dir + "/app.json", "--format", "env", "--env-prefix", "APP"])
      #expect(prefixed.status == 0 && prefixed.output == "export APP_A=1\n", "\(prefixed.output)")
    }
  }
}

/// Options a format cannot show are named on stderr, not dropped silently.
@Suite struct UnshownOptionTests {
  @Test func formatsThatCannotShowAnOptionSaySo() async throws {
    try await withTemporaryDirectory { dir in
      try write(#"{"a": 1}"#, to: dir + "/app.json")
      let file = dir + "/app.json"
      let plist = try await runConfigDump([file, "--format", "plist", "--show-origin"])
      #expect(plist.status == 0 && plist.output.contains("<key>a</key>"))
      #expect(plist.errors.contains("warning: --show-origin: the plist format has no place for origins"))
      for format in ["ini", "plist", "env"] {
        let run = try await runConfigDump([
          file, "--format", format, "--show-shadowed", "--env-prefix", "APP",
        ])
        #expect(run.status == 0, "\(run.errors)")
        #expect(
          run.errors.contains("warning: --show-shadowed: the \(format) format shows effective values only"))
      }
      for (format, extra) in [
        ("table", "--show-shadowed"), ("json", "--show-shadowed"), ("ini", "--show-origin"),
      ] {
        let run = try await runConfigDump([file, "--format", format, extra, "--show-origin"])
        #expect(run.status == 0 && run.errors.isEmpty, "\(format) \(extra): \(run.errors)")
      }
    }
  }
}

/// `--key` of a leaf with `--show-shadowed` lists what it hides, secrets redacted.
@Suite struct KeyShadowedTests {
  @Test func aLeafKeyListsTheValuesItHides() async throws {
    try await withTemporaryDirectory { dir in
      try write(#"{"port": 1, "db": {"password": "low-pw-1"}}"#, to: dir + "/low.json")
      try write(#"{"port": 2, "db": {"password": "high-pw-2"}}"#, to: dir + "/high.json")
      let files = [dir + "/low.json", dir + "/high.json"]
      let plain = try await runConfigDump(files + ["--key", "port"])
      #expect(plain.output == "2\n")
      let shadowed = try await runConfigDump(files + ["--key", "port", "--show-shadowed"])
      #expect(shadowed.output == "2\n  shadows 1\t\(dir)/low.json:1:10\n", "\(shadowed.output)")
      let secret = try await runConfigDump(
        files + ["--key", "db.password", "--show-shadowed", "--show-origin"])
      #expect(
        secret.output
          == "<redacted>\t\(dir)/high.json:1:32\n  shadows <redacted>\t\(dir)/low.json:1:32\n",
        "\(secret.output)")
    }
  }
}
