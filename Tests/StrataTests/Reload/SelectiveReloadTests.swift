import Foundation
import Testing

@testable import Strata

/// A string setting type that counts how often it is decoded, to see which settings a reload resolves.
struct CountedLabel: Codable, Sendable, Equatable {
  var text: String
  private static let lock = NSLock()
  nonisolated(unsafe) private static var count = 0
  static var decodes: Int { lock.withLock { count } }

  init(_ text: String) { self.text = text }
  init(from decoder: any Decoder) throws {
    Self.lock.withLock { Self.count += 1 }
    text = try decoder.singleValueContainer().decode(String.self)
  }
  func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    try container.encode(text)
  }
}

struct LabelSettings: SettingsGroup {
  static var section: String { "labels" }
  @Setting var first = CountedLabel("default")
}

struct TLSFilePair: Codable, Sendable, Equatable {
  var cert: String
  var key: String
}

struct TLSServerSettings: SettingsGroup {
  static var section: String { "server" }
  @Setting var tls = TLSFilePair(cert: "", key: "")
  @Setting var port = 8080
}

/// Like `LabelSettings` with a plain string (`CountedLabel`'s count belongs to one test).
struct PlainLabelSettings: SettingsGroup {
  static var section: String { "labels" }
  @Setting var first = "default"
}

struct RenamedReloadSettings: SettingsGroup {
  static var section: String { "pool" }
  @Setting(key: "max_connections", aliases: ["maxConn"]) var maxConnections = 10
  @Setting var idle = 1
}

/// A reload resolves again only the settings whose keys it touched; the rest keep their cached values.
@Suite struct SelectiveReloadTests {
  @Test func anEditResolvesOnlyTheSettingsItTouches() async throws {
    try await withTemporaryDirectory { dir in
      let path = dir + "/app.ini"
      try write("[labels]\nfirst = one\n[server]\nport = 1\n", to: path)
      let store = SettingsStore(layers: [FileLayer(scope: .system, files: [path])])
      let labels = LabelSettings(store: store)
      let server = TLSServerSettings(store: store)
      #expect(labels.first == CountedLabel("one"))
      let ports = server.$port.changes
      let decodesBefore = CountedLabel.decodes
      try write("[labels]\nfirst = one\n[server]\nport = 2\n", to: path)
      store.reload(paths: [path])
      #expect(await eventually(ports, equals: 2))
      #expect(labels.first == CountedLabel("one"))
      #expect(labels.$first.origin.description.hasSuffix("app.ini:2:9"))
      // Neither the reload nor the read after it decoded the untouched label again.
      #expect(CountedLabel.decodes == decodesBefore)
      // And an edit of the label does.
      try write("[labels]\nfirst = two\n[server]\nport = 2\n", to: path)
      store.reload(paths: [path])
      #expect(labels.first == CountedLabel("two"))
      #expect(CountedLabel.decodes > decodesBefore)
    }
  }

  @Test func aChangedLeafReachesASettingThatReadsTheWholeTable() async throws {
    try await withTemporaryDirectory { dir in
      let path = dir + "/app.ini"
      try write("[server.tls]\ncert = a.pem\nkey = a.key\n", to: path)
      let store = SettingsStore(layers: [FileLayer(scope: .system, files: [path])])
      let server = TLSServerSettings(store: store)
      #expect(server.tls == TLSFilePair(cert: "a.pem", key: "a.key"))
      let changes = server.$tls.changes
      try write("[server.tls]\ncert = b.pem\nkey = a.key\n", to: path)
      store.reload(paths: [path])
      #expect(await eventually(changes, equals: TLSFilePair(cert: "b.pem", key: "a.key")))
      #expect(server.tls.cert == "b.pem")
    }
  }

  @Test func aChangeInAShadowedValueReachesASettingThatFellBackToIt() async throws {
    try await withTemporaryDirectory { dir in
      let vendor = dir + "/vendor.ini"
      let system = dir + "/system.ini"
      try write("[server]\nport = 1\n", to: vendor)
      try write("[server]\nport = 80a\n", to: system)
      let store = SettingsStore(layers: [
        FileLayer(scope: .vendor, files: [vendor]), FileLayer(scope: .system, files: [system]),
      ])
      let server = TLSServerSettings(store: store)
      // The system value does not convert, so the vendor one is used.
      #expect(server.port == 1)
      let ports = server.$port.changes
      try write("[server]\nport = 2\n", to: vendor)
      store.reload(paths: [vendor])
      #expect(await eventually(ports, equals: 2))
      #expect(server.port == 2)
      #expect(store.diagnostics.contains { $0.error.message.contains("found \"80a\"") })
    }
  }

  @Test func aSettingUntouchedByMoreReloadsThanTheLogHoldsStillReadsRight() async throws {
    try await withTemporaryDirectory { dir in
      let path = dir + "/app.ini"
      try write("[labels]\nfirst = one\n[server]\nport = 0\n", to: path)
      let store = SettingsStore(layers: [FileLayer(scope: .system, files: [path])])
      let labels = PlainLabelSettings(store: store)
      let server = TLSServerSettings(store: store)
      #expect(labels.first == "one")
      for port in 1...(ChangeLog.capacity + 3) {
        try write("[labels]\nfirst = one\n[server]\nport = \(port)\n", to: path)
        #expect(await reloadUntil(store, reload: { store.reload(paths: [path]) }) { server.port == port })
      }
      #expect(labels.first == "one")
      try write("[labels]\nfirst = two\n[server]\nport = 0\n", to: path)
      #expect(await reloadUntil(store, reload: { store.reload(paths: [path]) }) { labels.first == "two" })
      #expect(server.port == 0)
    }
  }

  @Test func anEditOfAnOldKeyReachesTheRenamedSetting() async throws {
    try await withTemporaryDirectory { dir in
      let path = dir + "/app.ini"
      try write("[pool]\nmaxConn = 5\nidle = 2\n", to: path)
      let store = SettingsStore(layers: [FileLayer(scope: .system, files: [path])])
      let pool = RenamedReloadSettings(store: store)
      #expect(pool.maxConnections == 5)
      let changes = pool.$maxConnections.changes
      try write("[pool]\nmaxConn = 7\nidle = 2\n", to: path)
      store.reload(paths: [path])
      #expect(await eventually(changes, equals: 7))
      #expect(pool.maxConnections == 7)
      #expect(pool.idle == 2)
    }
  }

  @Test func aLeafThatBecomesATableAndBackReachesItsSetting() throws {
    try withTemporaryDirectory { dir in
      let path = dir + "/app.json"
      try write(#"{"server": {"port": 1}}"#, to: path)
      let store = SettingsStore(layers: [FileLayer(scope: .system, files: [path])])
      let server = TLSServerSettings(store: store)
      #expect(server.port == 1)
      // `port` is a table now: it does not convert, and the running value is kept (a rejected edit).
      try write(#"{"server": {"port": {"value": 2}}}"#, to: path)
      store.reload(paths: [path])
      #expect(server.port == 1)
      #expect(store.diagnostics.contains { $0.error.message.contains("server.port") })
      try write(#"{"server": {"port": 3}}"#, to: path)
      store.reload(paths: [path])
      #expect(server.port == 3)
    }
  }
}
