import Testing

@testable import Strata

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

struct ClientAuth: Codable, Sendable, Equatable {
  var required = false
  var caFile = "/etc/ssl/ca.pem"
}

enum TLSVersion: String, Codable, Sendable, CaseIterable {
  case v12 = "1.2"
  case v13 = "1.3"
}

struct TLSConfig: Codable, Sendable, Equatable {
  var enabled = false
  var keyPath = "/etc/ssl/private/app.key"
  var certPath = "/etc/ssl/certs/app.pem"
  var readTimeout: Duration = .seconds(30)
  var ciphers = ["TLS_AES_128_GCM_SHA256", "TLS_AES_256_GCM_SHA384"]
  var client = ClientAuth()
  var sessionCacheSize: Int? = 1024
  var ocspURL: String? = nil
  var headers: [String: String] = ["Server": "app"]
  var minVersion = TLSVersion.v12
}

struct Backend: Codable, Sendable, Equatable {
  var host: String
  var port = 80
}

struct HTTPSettings: SettingsGroup {
  @Setting var tls = TLSConfig()
  @Setting var upstreams = [Backend(host: "a.internal", port: 8080)]
  @Setting var fallbackTLS: TLSConfig? = TLSConfig(enabled: true)
}

/// A struct setting the layers set in part: each field they do not set keeps the struct's own default.
@Suite struct StructDefaultsTests {
  /// A store over one INI file at /etc/app/app.ini under a temporary root, and its group.
  private func load(_ ini: String, in dir: String) throws -> (SettingsStore, HTTPSettings) {
    try write(ini, to: dir + "/etc/app/app.ini")
    let store = SettingsStore(app: "app", root: dir, environment: [:], arguments: [])
    return (store, HTTPSettings(store: store))
  }

  @Test func aSectionThatSetsOneFieldKeepsTheOtherDefaultsWithoutAnError() throws {
    try withTemporaryDirectory { dir in
      let (store, http) = try load("[http.tls]\nenabled = yes\n", in: dir)
      #expect(http.tls.enabled)
      var expected = TLSConfig()
      expected.enabled = true
      #expect(http.tls == expected)
      #expect(store.diagnostics.filter { $0.severity == .error }.isEmpty)
    }
  }

  @Test func nestedStructsOptionalsAndDictionariesFallBackFieldByField() throws {
    try withTemporaryDirectory { dir in
      let ini = "[http.tls.client]\nrequired = on\n[http.tls]\nocspURL = http://ocsp.example\n"
      let (store, http) = try load(ini, in: dir)
      #expect(http.tls.client == ClientAuth(required: true, caFile: "/etc/ssl/ca.pem"))
      #expect(http.tls.ocspURL == "http://ocsp.example")
      #expect(http.tls.sessionCacheSize == 1024)
      #expect(http.tls.headers == ["Server": "app"])
      #expect(http.tls.ciphers == TLSConfig().ciphers)
      #expect(store.diagnostics.filter { $0.severity == .error }.isEmpty)
    }
  }

  @Test func aListOrDictionaryTheLayersSetReplacesTheDefaultWhole() throws {
    try withTemporaryDirectory { dir in
      let ini = "[http.tls]\nciphers = TLS_CHACHA20_POLY1305_SHA256\n[http.tls.headers]\nX-Frame = deny\n"
      let (_, http) = try load(ini, in: dir)
      #expect(http.tls.ciphers == ["TLS_CHACHA20_POLY1305_SHA256"])
      #expect(http.tls.headers == ["X-Frame": "deny"])
    }
  }

  @Test func anArrayOfStructsReplacesTheDefaultAndItsElementsHaveNoDefaultInstance() throws {
    let store = SettingsStore(layers: [
      StaticLayer(
        scope: .system,
        root: try parse(
          #"{"http": {"upstreams": [{"host": "b", "port": 1}, {"host": "c"}]}}"#, as: JSONFormat()
        ).root)
    ])
    let http = HTTPSettings(store: store)
    // `port` has a default in the type, but decoding an element has no default instance to read it from.
    #expect(http.upstreams == [Backend(host: "a.internal", port: 8080)])
    let error = try #require(store.diagnostics.first { $0.severity == .error })
    #expect(error.error.message.contains("http.upstreams[1].port"))

    let whole = SettingsStore(layers: [
      StaticLayer(
        scope: .system,
        root: try parse(#"{"http": {"upstreams": [{"host": "b", "port": 1}]}}"#, as: JSONFormat()).root)
    ])
    #expect(HTTPSettings(store: whole).upstreams == [Backend(host: "b", port: 1)])
  }

  @Test func anOptionalStructFallsBackToItsNonNilDefault() throws {
    try withTemporaryDirectory { dir in
      let (_, http) = try load("[http.fallbackTLS]\nkeyPath = /k\n", in: dir)
      #expect(http.fallbackTLS == TLSConfig(enabled: true, keyPath: "/k"))
    }
  }

  @Test func anInvalidFieldIsAnErrorAtItsPositionAndTheWholeSettingKeepsItsDefault() throws {
    try withTemporaryDirectory { dir in
      let (store, http) = try load("[http.tls]\nenabled = yes\nreadTimeout = 5 minutes\n", in: dir)
      #expect(http.tls == TLSConfig())
      let errors = store.diagnostics.filter { $0.severity == .error }
      #expect(errors.count == 1)
      let error = try #require(errors.first).error
      #expect(error.location?.hasSuffix("/etc/app/app.ini:3:15") == true, "\(error)")
      #expect(error.message.contains("http.tls.readTimeout"))
      #expect(error.message.contains("30s, 250ms or 1h30m"))
    }
  }

  @Test func aFieldTheLayersSetInSeveralFilesMergesAndTheDefaultFillsTheRest() throws {
    try withTemporaryDirectory { dir in
      try write("[http.tls]\nkeyPath = /vendor.key\n", to: dir + "/usr/lib/app/app.ini")
      let (_, http) = try load("[http.tls]\nenabled = true\n", in: dir)
      #expect(http.tls.enabled)
      #expect(http.tls.keyPath == "/vendor.key")
      #expect(http.tls.certPath == TLSConfig().certPath)
    }
  }

  @Test func aRequiredStructHasNoDefaultToFallBackOn() throws {
    struct Required: SettingsGroup {
      @Setting var tls: TLSConfig
    }
    let store = SettingsStore(layers: [
      StaticLayer(
        scope: .system, root: try parse(#"{"required": {"tls": {"enabled": true}}}"#, as: JSONFormat()).root)
    ])
    let group = Required(store: store)
    #expect(throws: StrataError.self) { try group.$tls.require() }
    let error = try #require(store.diagnostics.first { $0.error.code == .notFound })
    #expect(error.error.message == "expected String for required.tls.keyPath, found nothing")
  }
}

/// What an error says is accepted.
@Suite struct AcceptedValuesTests {
  @Test func aBadEnumFieldListsTheCases() throws {
    try withTemporaryDirectory { dir in
      try write("[http.tls]\nminVersion = 1.4\n", to: dir + "/etc/app/app.ini")
      let store = SettingsStore(app: "app", root: dir, environment: [:], arguments: [])
      let http = HTTPSettings(store: store)
      #expect(http.tls.minVersion == .v12)
      let error = try #require(store.diagnostics.first { $0.severity == .error })
      #expect(
        error.error.message == "expected TLSVersion for http.tls.minVersion, found \"1.4\" (one of: 1.2, 1.3)"
      )
    }
  }

  @Test func aBadRawValueEnumSettingListsTheCasesWhenItCanBeIterated() throws {
    enum Mode: String, Sendable, CaseIterable { case fast, safe }
    enum Opaque: String, Sendable { case a, b }
    struct Modes: SettingsGroup {
      @Setting var mode = Mode.fast
      @Setting var opaque = Opaque.a
    }
    let store = SettingsStore(layers: [
      StaticLayer(
        scope: .system,
        root: try parse(#"{"modes": {"mode": "quick", "opaque": "c"}}"#, as: JSONFormat()).root)
    ])
    let modes = Modes(store: store)
    let messages = withExtendedLifetime(modes) {
      store.diagnostics.filter { $0.severity == .error }.map(\.error.message)
    }
    #expect(
      messages.contains(#""quick" is not a valid Mode for modes.mode (one of: fast, safe)"#), "\(messages)")
    // Without `CaseIterable` the cases cannot be listed.
    #expect(messages.contains(#""c" is not a valid Opaque for modes.opaque"#), "\(messages)")
  }
}
