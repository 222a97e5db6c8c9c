import Testing

@testable import Strata

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// Environment variables and command-line options set one field of a `Codable` struct setting
/// (`APP_HTTP_TLS_ENABLED`, `--http.tls.enabled`), learnt from the struct's default when it is declared.
@Suite struct StructFieldVariablesTests {
  /// A store under a temporary root with `environment` and `arguments`, and its group.
  private func load(
    environment: [String: String], arguments: [String] = [], in dir: String
  ) -> (SettingsStore, HTTPSettings) {
    let store = SettingsStore(app: "app", root: dir, environment: environment, arguments: arguments)
    return (store, HTTPSettings(store: store))
  }

  private func messages(_ store: SettingsStore, _ severity: Diagnostic.Severity) -> [String] {
    store.diagnostics.filter { $0.severity == severity }.map(\.error.description)
  }

  @Test func aVariableSetsOneFieldAndTheOthersKeepTheDefault() throws {
    try withTemporaryDirectory { dir in
      let (store, http) = load(environment: ["APP_HTTP_TLS_ENABLED": "1"], in: dir)
      var expected = TLSConfig()
      expected.enabled = true
      #expect(http.tls == expected)
      #expect(store.diagnostics.isEmpty, "\(store.diagnostics)")
      #expect(http.$tls.fieldOrigins["http.tls.enabled"] == .environment(variable: "APP_HTTP_TLS_ENABLED"))
    }
  }

  @Test func aVariableSetsAFieldOfANestedStructOrANilOptionalField() throws {
    try withTemporaryDirectory { dir in
      let (store, http) = load(
        environment: ["APP_HTTP_TLS_CLIENT_REQUIRED": "yes", "APP_HTTP_TLS_OCSP_URL": "http://ocsp.example"],
        in: dir)
      #expect(http.tls.client == ClientAuth(required: true, caFile: ClientAuth().caFile))
      #expect(http.tls.ocspURL == "http://ocsp.example")
      #expect(http.tls.keyPath == TLSConfig().keyPath)
      #expect(store.diagnostics.isEmpty, "\(store.diagnostics)")
    }
  }

  @Test func anInvalidFieldVariableIsAnErrorNamingItAndTheSettingKeepsItsValue() throws {
    try withTemporaryDirectory { dir in
      try write("[http.tls]\nkeyPath = /etc/app/app.key\n", to: dir + "/etc/app/app.ini")
      let (store, http) = load(environment: ["APP_HTTP_TLS_ENABLED": "maybe"], in: dir)
      var fromFile = TLSConfig()
      fromFile.keyPath = "/etc/app/app.key"
      #expect(http.tls == fromFile)
      let errors = messages(store, .error)
      #expect(errors.count == 1, "\(errors)")
      #expect(errors.first?.contains("env:APP_HTTP_TLS_ENABLED") == true, "\(errors)")
      #expect(errors.first?.contains("http.tls.enabled") == true, "\(errors)")
    }
  }

  @Test func anUnknownFieldVariableWarnsWithTheClosestField() throws {
    try withTemporaryDirectory { dir in
      let (store, http) = load(environment: ["APP_HTTP_TLS_ENABELD": "1"], in: dir)
      #expect(http.tls == TLSConfig())
      let warnings = messages(store, .warning)
      #expect(
        warnings.contains {
          $0.contains("APP_HTTP_TLS_ENABELD matches no known setting")
            && $0.contains("did you mean APP_HTTP_TLS_ENABLED?")
        }, "\(warnings)")
    }
  }

  @Test func aFieldAndASettingOfOneNameAreReportedAsACollision() throws {
    struct Both: SettingsGroup {
      static var section: String { "http" }
      @Setting var tls = TLSConfig()
      @Setting var tlsEnabled = false
    }
    try withTemporaryDirectory { dir in
      let store = SettingsStore(
        app: "app", root: dir, environment: ["APP_HTTP_TLS_ENABLED": "1"], arguments: [])
      let both = Both(store: store)
      #expect(both.tlsEnabled)
      #expect(both.tls.enabled)
      #expect(
        messages(store, .error).contains {
          $0.contains(
            "'http.tls.enabled' and 'http.tlsEnabled' both map to the environment variable APP_HTTP_TLS_ENABLED"
          )
        }, "\(store.diagnostics)")
      #expect(
        messages(store, .warning).contains {
          $0.contains(
            "'http.tlsEnabled' and 'http.tls.enabled' share the environment variable APP_HTTP_TLS_ENABLED")
        }, "\(store.diagnostics)")
    }
  }

  @Test func anOptionSetsAFieldAndABareBoolFieldIsAFlag() throws {
    try withTemporaryDirectory { dir in
      let (store, http) = load(
        environment: [:],
        arguments: ["--http.tls.enabled=true", "--http.tls.client.required", "--http.tls.keyPath", "/k"],
        in: dir)
      #expect(http.tls.enabled)
      #expect(http.tls.client.required)
      #expect(http.tls.keyPath == "/k")
      #expect(store.diagnostics.isEmpty, "\(store.diagnostics)")
    }
    var declared = DeclaredKeys()
    declared.add("http.tls")
    declared.addFields([("http.tls.enabled", true)], of: "http.tls")
    let root = try #require(
      CommandLineLayer(arguments: ["--http.tls.enabled", "serve"]).load(LoadContext(declared: declared))
        .documents
        .first?.root)
    #expect(root.value(at: "http.tls.enabled")?.kind == .string("true"))
  }

  @Test func configDumpWithTheSchemaReadsAFieldVariableAsTheProgramDoes() async throws {
    try await withTemporaryDirectory { dir in
      try writeHTTPSchema(to: dir + "/schema.json")
      let dump = ["--root", dir, "--app", "app", "--schema", dir + "/schema.json", "--key"]
      let field = try await runConfigDump(
        dump + ["http.tls.ocspURL"], environment: ["APP_HTTP_TLS_OCSP_URL": "http://ocsp.example"])
      #expect(field.status == 0, "\(field.errors)")
      #expect(field.output == "http://ocsp.example\n", "\(field.output)")
      #expect(!field.errors.contains("matches no known setting"), "\(field.errors)")
      let bad = try await runConfigDump(
        dump + ["http.tls.enabled"], environment: ["APP_HTTP_TLS_ENABLED": "maybe"])
      #expect(bad.status == 1)
      #expect(bad.output == "false\n", "\(bad.output)")
      #expect(bad.errors.contains("env:APP_HTTP_TLS_ENABLED"), "\(bad.errors)")
      let typo = try await runConfigDump(
        dump + ["http.tls.enabled"], environment: ["APP_HTTP_TLS_ENABELD": "1"])
      #expect(typo.errors.contains("did you mean APP_HTTP_TLS_ENABLED?"), "\(typo.errors)")
    }
  }

  @Test func aReleasedStructSettingForgetsItsFields() {
    var declared = DeclaredKeys()
    declared.add("http.tls")
    declared.addFields([("http.tls.enabled", true), ("http.tls.keyPath", false)], of: "http.tls")
    #expect(declared.keys(named: "HTTP_TLS_ENABLED") == ["http.tls.enabled"])
    #expect(declared.flags.contains("http.tls.enabled"))
    #expect(declared.names.contains("HTTP_TLS_KEY_PATH"))
    declared.remove("http.tls")
    #expect(declared.keys(named: "HTTP_TLS_ENABLED").isEmpty)
    #expect(declared.flags.isEmpty)
    #expect(declared.names.isEmpty)
  }

  @Test func fieldsDeeperThanTheLimitAreNotNamed() throws {
    let shape = try #require(SettingEncoder().fieldShape(of: TLSConfig()))
    let shallow = shape.settableFields(below: "tls", maxDepth: 1).map(\.key)
    #expect(shallow.contains("tls.enabled"))
    #expect(shallow.contains("tls.ocspURL"))
    #expect(!shallow.contains { $0.hasPrefix("tls.client") })
    let deep = shape.settableFields(below: "tls", maxDepth: DeclaredKeys.maxFieldDepth)
    #expect(deep.contains { $0 == ("tls.client.required", true) })
    #expect(shape.settableFields(below: "tls", maxDepth: 0).isEmpty)
  }
}

extension LoadContext {
  fileprivate init(declared: DeclaredKeys) {
    self.init(options: ParseOptions(), declared: declared, lowerDocuments: [], cache: nil)
  }
}
