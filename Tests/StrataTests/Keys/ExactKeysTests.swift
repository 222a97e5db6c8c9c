import Foundation
import Testing

@testable import Strata

/// `{"a.b": 1, "a": {"b": 2}}` has two keys, and both survive every path.
@Suite struct ExactKeysTests {
  static let twoKeys = #"{"a.b": 1, "a": {"b": 2}, "./package.json": {"name": "x"}}"#

  func snapshot(_ dir: String) throws -> Snapshot {
    try write(Self.twoKeys, to: dir + "/app.json")
    return LayerStack(layers: [FileLayer(scope: .system, files: [dir + "/app.json"])]).load()
  }

  @Test func theSnapshotKeepsBothKeys() throws {
    try withTemporaryDirectory { dir in
      let snapshot = try snapshot(dir)
      #expect(snapshot.keys == [#""a.b""#, "a.b", #""./package.json".name"#])
      #expect(snapshot.entry(forKey: #""a.b""#)?.value.kind == .integer(1))
      #expect(snapshot.entry(forKey: "a.b")?.value.kind == .integer(2))
      #expect(snapshot.value(forKey: #""./package.json".name"#)?.kind == .string("x"))
      #expect(position(snapshot.entry(forKey: #""a.b""#)?.value) == "1:9")
      #expect(position(snapshot.entry(forKey: "a.b")?.value) == "1:23")
    }
  }

  @Test func aLowerLayerShadowsTheSameNamesOnly() throws {
    try withTemporaryDirectory { dir in
      try write(#"{"a.b": 1, "a": {"b": 2}}"#, to: dir + "/low.json")
      try write(#"{"a": {"b": 3}}"#, to: dir + "/high.json")
      let snapshot = LayerStack(layers: [
        FileLayer(scope: .vendor, files: [dir + "/low.json"]),
        FileLayer(scope: .system, files: [dir + "/high.json"]),
      ]).load()
      #expect(snapshot.entry(forKey: #""a.b""#)?.value.kind == .integer(1))
      #expect(snapshot.entry(forKey: #""a.b""#)?.shadowed.isEmpty == true)
      #expect(snapshot.entry(forKey: "a.b")?.value.kind == .integer(3))
      #expect(snapshot.entry(forKey: "a.b")?.shadowed.map(\.value.kind) == [.integer(2)])
    }
  }

  @Test func everyDumpFormatKeepsBothValues() async throws {
    try await withTemporaryDirectory { dir in
      try write(Self.twoKeys, to: dir + "/app.json")
      let file = dir + "/app.json"
      let json = try await runConfigDump([file, "--format", "json"])
      #expect(json.status == 0)
      #expect(try reparse(json.output, as: JSONFormat()) == reparse(Self.twoKeys, as: JSONFormat()))

      let origins = try await runConfigDump([file, "--format", "json", "--show-origin"])
      let tree = try parse(origins.output, as: JSONFormat()).root
      #expect(tree.table?["a.b"]?.value(atComponents: ["value"])?.kind == .integer(1))
      #expect(tree.value(atComponents: ["a", "b", "value"])?.kind == .integer(2))
      #expect(tree.value(atComponents: ["./package.json", "name", "value"])?.kind == .string("x"))
      #expect(tree.value(atComponents: ["a", "b", "origin"])?.kind == .string(file + ":1:23"))

      let table = try await runConfigDump([file, "--show-origin"])
      let rows = table.output.split(separator: "\n").map {
        $0.split(separator: " ", omittingEmptySubsequences: true)
      }
      #expect(rows.contains { $0.first == #""a.b""# && $0.dropFirst().first == "1" })
      #expect(rows.contains { $0.first == "a.b" && $0.dropFirst().first == "2" })
      #expect(rows.contains { $0.first == #""./package.json".name"# && $0.dropFirst().first == "x" })

      let ini = try await runConfigDump([file, "--format", "ini"])
      #expect(ini.status == 0)
      let iniTree = try parse(ini.output, as: INIFormat()).root
      #expect(iniTree.table?["a.b"]?.kind == .string("1"))
      #expect(iniTree.value(atComponents: ["a", "b"])?.kind == .string("2"))
      #expect(iniTree.value(atComponents: ["./package.json", "name"])?.kind == .string("x"))

      let plist = try await runConfigDump([file, "--format", "plist"])
      #expect(try reparse(plist.output, as: PropertyListFormat()) == reparse(Self.twoKeys, as: JSONFormat()))

      let env = try await runConfigDump([file, "--format", "env", "--env-prefix", "APP"])
      #expect(env.output.contains("export APP_A_B=1\n"))
      #expect(env.output.contains("export APP_A_B=2\n"))
      #expect(env.output.contains("export APP_PACKAGE_JSON_NAME=x\n"))
    }
  }

  @Test func keyReadsQuotedNames() async throws {
    try await withTemporaryDirectory { dir in
      try write(Self.twoKeys, to: dir + "/app.json")
      let file = dir + "/app.json"
      #expect(try await runConfigDump([file, "--key", #""a.b""#]).output == "1\n")
      #expect(try await runConfigDump([file, "--key", "a.b"]).output == "2\n")
      #expect(try await runConfigDump([file, "--key", #""./package.json".name"#]).output == "x\n")
      let table = try await runConfigDump([file, "--key", #""./package.json""#, "--format", "json"])
      #expect(try reparse(table.output, as: JSONFormat()) == reparse(#"{"name": "x"}"#, as: JSONFormat()))
      let missing = try await runConfigDump([file, "--key", #""a.c""#])
      #expect(missing.status == 3)
      #expect(missing.errors.contains(#"did you mean "a.b"?"#))
    }
  }

  @Test func writesReachTheRightKey() throws {
    for name in ["app.json", "app.ini", "app.plist"] {
      try withTemporaryDirectory { dir in
        let path = dir + "/" + name
        let store = SettingsStore(
          layers: [FileLayer(scope: .user, files: [path])], writeTarget: .file(path))
        try store.write(SettingValue(.string("dotted"), origin: .runtime), forKey: #""a.b""#)
        try store.write(SettingValue(.string("nested"), origin: .runtime), forKey: "a.b")
        try store.write(SettingValue(.string("pool"), origin: .runtime), forKey: #"www."listen.owner""#)
        let reread = LayerStack(layers: [FileLayer(scope: .user, files: [path])]).load()
        #expect(reread.entry(forKey: #""a.b""#)?.value.kind == .string("dotted"), "\(name)")
        #expect(reread.entry(forKey: "a.b")?.value.kind == .string("nested"), "\(name)")
        #expect(reread.entry(forKey: #"www."listen.owner""#)?.value.kind == .string("pool"), "\(name)")
        try store.write(nil, forKey: #""a.b""#)
        let after = LayerStack(layers: [FileLayer(scope: .user, files: [path])]).load()
        #expect(after.entry(forKey: #""a.b""#) == nil, "\(name)")
        #expect(after.entry(forKey: "a.b")?.value.kind == .string("nested"), "\(name)")
      }
    }
  }

  @Test func theEnvironmentOverridesANameWithADot() throws {
    try withTemporaryDirectory { dir in
      try write(#"{"www": {"listen.owner": "nobody"}}"#, to: dir + "/app.json")
      let snapshot = LayerStack(layers: [
        FileLayer(scope: .system, files: [dir + "/app.json"]),
        EnvironmentLayer(prefix: "FPM", variables: ["FPM_WWW_LISTEN_OWNER": "www-data"]),
      ]).load()
      #expect(snapshot.keys == [#"www."listen.owner""#])
      #expect(snapshot.entry(forKey: #"www."listen.owner""#)?.value.kind == .string("www-data"))
      #expect(
        snapshot.entry(forKey: #"www."listen.owner""#)?.origin
          == .environment(variable: "FPM_WWW_LISTEN_OWNER"))
    }
  }

  @Test func theSchemaKeepsNamesWithDots() throws {
    let schema = SettingsSchema(entries: [
      SettingsSchema.Entry(key: #"www."listen.owner""#, type: .string(format: nil), typeName: "String"),
      SettingsSchema.Entry(key: "www.listen", type: .string(format: nil), typeName: "String"),
    ])
    let exported = schema.jsonSchema(title: "t", environmentPrefix: "FPM")
    let owner = exported.value(atComponents: ["properties", "www", "properties", "listen.owner"])
    #expect(owner?.value(atComponents: ["x-strata-env"])?.kind == .string("FPM_WWW_LISTEN_OWNER"))
    let reread = try SettingsSchema(jsonSchema: exported)
    #expect(reread.entries.map(\.key).sorted() == ["www.listen", #"www."listen.owner""#].sorted())
    #expect(reread.declares(#"www."listen.owner""#))
    #expect(!reread.declares("www.listen.owner"))
  }

  private func reparse(_ text: String, as format: some ConfigFormat) throws -> SettingValue {
    try parse(text, as: format).root
  }
}

struct PoolSettings: SettingsGroup {
  static var section: String { "www" }
  @Setting var listen = ""
  @Setting(key: #""listen.owner""#) var listenOwner = "nobody"
}

@Suite struct ExactKeysGroupTests {
  @Test func aSettingCanNameAKeyWithADot() throws {
    try withTemporaryDirectory { dir in
      try write(#"{"www": {"listen": "/run/fpm.sock", "listen.owner": "www-data"}}"#, to: dir + "/app.json")
      let store = SettingsStore(
        layers: [
          FileLayer(scope: .system, files: [dir + "/app.json"]),
          EnvironmentLayer(prefix: "FPM", variables: [:]),
        ])
      let pool = PoolSettings(store: store)
      #expect(pool.listen == "/run/fpm.sock")
      #expect(pool.listenOwner == "www-data")
      #expect(pool.$listenOwner.key == #"www."listen.owner""#)
      #expect(pool.$listenOwner.environmentName == "FPM_WWW_LISTEN_OWNER")
      #expect(pool.$listenOwner.origin == .file(path: dir + "/app.json", line: 1, column: 53))
      #expect(store.diagnostics.isEmpty, "\(store.diagnostics)")
    }
  }
}
