import Foundation
import Testing

@testable import Strata

/// Writes the JSON Schema of a program that declares ``HTTPSettings`` to `path`, for
/// `config-dump --schema`.
func writeHTTPSchema(to path: String) throws {
  let store = SettingsStore.inMemory()
  let http = HTTPSettings(store: store)
  try withExtendedLifetime(http) {
    try write(
      String(decoding: try JSONFormat().serialize(store.schema.jsonSchema(title: "t")), as: UTF8.self),
      to: path)
  }
}

/// A struct setting's fields, learnt from its default: typos inside its table are unknown keys with a
/// suggestion, and `config-dump --schema` checks each field as the program reads it.
@Suite struct StructFieldsSchemaTests {
  private func unknownKeys(_ ini: String, in dir: String) throws -> [String] {
    try write(ini, to: dir + "/etc/app/app.ini")
    let store = SettingsStore(app: "app", root: dir, environment: [:], arguments: [])
    let http = HTTPSettings(store: store)
    return withExtendedLifetime(http) {
      store.diagnostics.filter { $0.error.code == .unknownKey }.map(\.description)
    }
  }

  @Test func aTypoInsideAStructTableIsAnUnknownKeyWithTheClosestField() throws {
    try withTemporaryDirectory { dir in
      let found = try unknownKeys(
        "[http.tls]\nenabled = yes\nreadTimeotu = 5s\n[http.tls.client]\nrequird = 1\n", in: dir)
      #expect(found.count == 2)
      #expect(
        found.contains {
          $0.hasSuffix(
            "/etc/app/app.ini:3:1: warning: unknown key 'http.tls.readTimeotu' (did you mean 'http.tls.readTimeout'?)"
          )
        }, "\(found)")
      #expect(
        found.contains {
          $0.hasSuffix(
            "/etc/app/app.ini:5:1: warning: unknown key 'http.tls.client.requird' "
              + "(did you mean 'http.tls.client.required'?)")
        }, "\(found)")
    }
  }

  @Test func nilOptionalFieldsDictionaryEntriesAndArraysAreNotUnknown() throws {
    try withTemporaryDirectory { dir in
      let ini = """
        [http.tls]
        ocspURL = http://ocsp.example
        ciphers = A, B
        [http.tls.headers]
        X-Anything = 1
        [http.fallbackTLS]
        enabled = no
        """
      let found = try unknownKeys(ini, in: dir)
      #expect(found.isEmpty, "\(found)")
    }
  }

  @Test func aNameBelowAScalarFieldIsUnknown() throws {
    try withTemporaryDirectory { dir in
      let found = try unknownKeys("[http.tls.enabled]\nx = 1\n", in: dir)
      #expect(found.count == 1)
      #expect(found.first?.contains("unknown key 'http.tls.enabled.x'") == true, "\(found)")
    }
  }

  @Test func theExportedSchemaListsTheFieldsAndReadsThemBack() throws {
    let store = SettingsStore.inMemory()
    let http = HTTPSettings(store: store)
    defer { withExtendedLifetime(http) {} }
    let exported = store.schema.jsonSchema(title: "t")
    let tls = try #require(exported.value(atComponents: ["properties", "http", "properties", "tls"]))
    // A nil optional field is listed too, typed by its payload.
    #expect(tls.value(atComponents: ["properties", "ocspURL", "type"])?.stringValue == "string")
    #expect(tls.value(atComponents: ["properties", "sessionCacheSize", "type"])?.stringValue == "integer")
    #expect(tls.value(atComponents: ["properties", "readTimeout", "format"])?.stringValue == "duration")
    #expect(
      tls.value(atComponents: ["properties", "client", "properties", "required", "type"])?.stringValue
        == "boolean")
    let reread = try SettingsSchema(jsonSchema: exported)
    #expect(reread.entry(forKey: "http.tls")?.fields == store.schema.entry(forKey: "http.tls")?.fields)
    #expect(reread.entry(forKey: "http.tls")?.fields != nil)
  }

  /// `config-dump --check --schema` over a file, with the schema the program exports.
  private func check(_ ini: String, in dir: String) async throws -> DumpRun {
    try writeHTTPSchema(to: dir + "/schema.json")
    try write(ini, to: dir + "/app.ini")
    return try await runConfigDump([dir + "/app.ini", "--schema", dir + "/schema.json", "--check"])
  }

  @Test func configDumpAcceptsAPartlySetStructAsTheProgramDoes() async throws {
    try await withTemporaryDirectory { dir in
      let run = try await check("[http.tls]\nenabled = yes\n", in: dir)
      #expect(run.status == 0, "\(run.output)")
      #expect(run.output.hasSuffix("0 errors, 0 warnings\n"), "\(run.output)")
    }
  }

  @Test func configDumpReportsAnInvalidFieldAtItsPositionAsTheProgramDoes() async throws {
    try await withTemporaryDirectory { dir in
      let bool = try await check("[http.tls]\nenabled = maybe\n", in: dir)
      #expect(bool.status == 1)
      #expect(
        bool.output.contains(
          "\(dir)/app.ini:2:11: error: expected Bool for http.tls.enabled, found \"maybe\""),
        "\(bool.output)")
      let duration = try await check("[http.tls]\nreadTimeout = 5 minutes\n", in: dir)
      #expect(duration.status == 1)
      #expect(
        duration.output.contains("\(dir)/app.ini:2:15: error: expected Duration for http.tls.readTimeout"))
      let version = try await check("[http.tls]\nminVersion = 1.4\n", in: dir)
      #expect(version.status == 1)
      #expect(
        version.output.contains(
          "\(dir)/app.ini:2:14: error: expected one of 1.2, 1.3 for http.tls.minVersion"),
        "\(version.output)")
    }
  }

  @Test func configDumpSuggestsTheFieldForATypoAndExitsZeroForAWarning() async throws {
    try await withTemporaryDirectory { dir in
      let run = try await check("[http.tls]\nreadTimeotu = 5s\n", in: dir)
      #expect(run.status == 0)
      #expect(
        run.output.contains(
          "\(dir)/app.ini:2:1: warning: unknown key 'http.tls.readTimeotu' (did you mean 'http.tls.readTimeout'?)"
        ),
        "\(run.output)")
    }
  }

  @Test func configDumpShowsTheDefaultStructWhenAFieldIsBadAsTheProgramRuns() async throws {
    try await withTemporaryDirectory { dir in
      try writeHTTPSchema(to: dir + "/schema.json")
      try write("[http.tls]\nkeyPath = /vendor.key\n", to: dir + "/usr/lib/app/app.ini")
      try write("[http.tls]\nenabled = maybe\n", to: dir + "/etc/app/app.ini")
      let program = SettingsStore(app: "app", root: dir, environment: [:], arguments: [])
      let running = HTTPSettings(store: program)
      #expect(running.tls == TLSConfig())
      let run = try await runConfigDump([
        "--root", dir, "--app", "app", "--schema", dir + "/schema.json", "--key", "http.tls.keyPath",
      ])
      #expect(run.status == 1)
      #expect(run.output == TLSConfig().keyPath + "\n", "\(run.output)")
      #expect(
        run.errors.contains("error: expected Bool for http.tls.enabled, found \"maybe\""), "\(run.errors)")
    }
  }

  @Test func aBadFieldOfASecretStructIsNamedNeverShown() async throws {
    struct Vault: SettingsGroup {
      @Setting(traits: .secret) var tls = TLSConfig()
    }
    try await withTemporaryDirectory { dir in
      let store = SettingsStore.inMemory()
      let vault = Vault(store: store)
      defer { withExtendedLifetime(vault) {} }
      try write(
        String(decoding: try JSONFormat().serialize(store.schema.jsonSchema(title: "t")), as: UTF8.self),
        to: dir + "/schema.json")
      try write("[vault.tls]\nminVersion = s3cr3t\n", to: dir + "/app.ini")
      let run = try await runConfigDump([dir + "/app.ini", "--schema", dir + "/schema.json", "--check"])
      #expect(run.status == 1)
      #expect(!run.output.contains("s3cr3t"), "\(run.output)")
      #expect(run.output.contains("\(dir)/app.ini:2:14: error: "), "\(run.output)")
    }
  }
}
