import Testing

@testable import Strata

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// A struct's origins per field, and hidden values that describe themselves.
@Suite struct FieldOriginsTests {
  @Test func aStructWhoseFieldsComeFromSeveralPlacesNamesEachPlaceAndTheDefault() throws {
    try withTemporaryDirectory { dir in
      try write("[http.tls]\nkeyPath = /vendor.key\n", to: dir + "/usr/lib/app/app.ini")
      try write("[http.tls]\nenabled = yes\n", to: dir + "/etc/app/app.ini")
      let store = SettingsStore(app: "app", root: dir, environment: [:], arguments: [])
      let http = HTTPSettings(store: store)
      let origins = http.$tls.fieldOrigins
      #expect(Set(origins.keys) == ["http.tls.enabled", "http.tls.keyPath"])
      let enabled = try #require(origins["http.tls.enabled"])
      let keyPath = try #require(origins["http.tls.keyPath"])
      #expect(enabled.description.hasSuffix("/etc/app/app.ini:2:11"))
      #expect(keyPath.description.hasSuffix("/usr/lib/app/app.ini:2:11"))
      let etc = try #require(enabled.path)
      let vendor = try #require(keyPath.path)
      #expect(
        http.$tls.originDescription == "fields from \(etc) (enabled), \(vendor) (keyPath), default (others)")
      let record = try #require(http.allSettings.first { $0.key == "http.tls" })
      #expect(
        record.description.hasSuffix("(fields from \(etc) (enabled), \(vendor) (keyPath), default (others))"))
    }
  }

  @Test func aValueFromOnePlaceOrTheDefaultIsDescribedByItsOrigin() throws {
    try withTemporaryDirectory { dir in
      try write("[http]\nupstreams = []\n", to: dir + "/etc/app/app.ini")
      let store = SettingsStore(app: "app", root: dir, environment: [:], arguments: [])
      let http = HTTPSettings(store: store)
      #expect(http.$tls.fieldOrigins.isEmpty)
      #expect(http.$tls.originDescription == "default")
      #expect(http.$upstreams.fieldOrigins.isEmpty)
      #expect(http.$upstreams.originDescription == http.$upstreams.origin.description)
    }
  }

  @Test func aStructSetWholeInOneFileIsDescribedByThatFile() throws {
    let json =
      #"{"http": {"fallbackTLS": {"enabled": true, "keyPath": "k", "certPath": "c", "readTimeout": "1s", "#
      + #""ciphers": [], "client": {"required": true, "caFile": "f"}, "sessionCacheSize": 1, "headers": {}, "#
      + #""minVersion": "1.3"}}}"#
    let store = SettingsStore(layers: [
      StaticLayer(scope: .system, root: try parse(json, as: JSONFormat(), path: "/etc/app/app.json").root)
    ])
    let http = HTTPSettings(store: store)
    #expect(http.fallbackTLS?.minVersion == .v13)
    // `headers` is an empty table, not a field the layers set: the default fills it, equal as it is.
    #expect(http.$fallbackTLS.originDescription.hasPrefix("fields from /etc/app/app.json ("))
    #expect(http.$fallbackTLS.fieldOrigins.count == 9)
  }

  @Test func aHiddenValueNamesItsPlaceAndWhyItWasRejected() throws {
    struct Ports: SettingsGroup {
      @Setting var port = 8080
    }
    let portStore = SettingsStore(layers: [
      StaticLayer(
        scope: .vendor,
        root: try parse(#"{"ports": {"port": 81}}"#, as: JSONFormat(), path: "/usr/lib/app/app.json").root),
      StaticLayer(
        scope: .system,
        root: try parse("[ports]\nport = 80a\n", as: INIFormat(), path: "/etc/app/app.ini").root),
    ])
    let ports = Ports(store: portStore)
    #expect(ports.port == 81)
    let shown = ports.$port.shadowed.map(\.description)
    #expect(shown == [#"80a (/etc/app/app.ini:2:8; rejected: expected Int for ports.port, found "80a")"#])
  }
}
