import Foundation
import Testing

@testable import Strata

enum SchemaMode: String, Codable, Sendable { case fast, safe }

struct SchemaEndpoint: Codable, Sendable, Equatable {
  var host = "localhost"
  var port = 80
}

struct SchemaSettings: SettingsGroup {
  static var section: String { "app" }
  @Setting(help: "TCP port", validation: .range(1...65535)) var port = 8080
  @Setting(traits: .secret) var token = "s3cret-default"
  @Setting(traits: [.restartRequired, .deprecated]) var workers = 4
  @Setting var ratio = 0.5
  @Setting var verbose = false
  @Setting var tags: [String] = ["a"]
  @Setting var limits: [String: Int] = [:]
  @Setting var mode: SchemaMode = .safe
  @Setting var endpoint = SchemaEndpoint()
  @Setting var nickname: String? = nil
  @Setting var timeout: Duration = .seconds(5)
}

@Suite struct SettingsSchemaTests {
  @Test func typesComeFromTheDeclarations() throws {
    let group = SchemaSettings.inMemory()
    let schema = group.store.schema
    let types = Dictionary(uniqueKeysWithValues: schema.entries.map { ($0.key, $0.type) })
    #expect(types["app.port"] == .integer)
    #expect(types["app.ratio"] == .number)
    #expect(types["app.verbose"] == .boolean)
    #expect(types["app.tags"] == .array(.string(format: nil)))
    #expect(types["app.limits"] == .map(.integer))
    #expect(types["app.mode"] == .string(format: nil))
    #expect(types["app.endpoint"] == .object)
    #expect(types["app.nickname"] == .optional(.string(format: nil)))
    #expect(types["app.timeout"] == .string(format: "duration"))
    #expect(schema.entry(forKey: "app.port")?.help == "TCP port")
    #expect(schema.entry(forKey: "app.port")?.validationSummary == "must be in 1...65535")
    #expect(schema.secretKeys == ["app.token"])
  }

  @Test func jsonSchemaExportRoundTripsAndHidesSecrets() throws {
    let group = SchemaSettings.inMemory()
    let tree = group.store.schema.jsonSchema(title: "t", environmentPrefix: "APP")
    let text = String(decoding: try JSONFormat().serialize(tree), as: UTF8.self)
    #expect(!text.contains("s3cret-default"))
    let object = try #require(JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    #expect(object["$schema"] as? String == "https://json-schema.org/draft/2020-12/schema")
    let app = try #require((object["properties"] as? [String: Any])?["app"] as? [String: Any])
    let properties = try #require(app["properties"] as? [String: Any])
    let port = try #require(properties["port"] as? [String: Any])
    #expect(port["type"] as? String == "integer")
    #expect(port["default"] as? Int == 8080)
    #expect(port["description"] as? String == "TCP port")
    #expect(port["x-strata-env"] as? String == "APP_APP_PORT")
    let token = try #require(properties["token"] as? [String: Any])
    #expect(token["writeOnly"] as? Bool == true)
    #expect(token["default"] == nil)
    #expect((properties["workers"] as? [String: Any])?["x-strata-restart-required"] as? Bool == true)
    #expect((properties["nickname"] as? [String: Any])?["type"] as? [String] == ["string", "null"])

    let parsed = try SettingsSchema(
      jsonSchema: try JSONFormat().parse(Array(text.utf8), path: "s.json", options: ParseOptions()).root)
    #expect(parsed.entries.map(\.key) == group.store.schema.entries.map(\.key))
    #expect(parsed.entries.map(\.type) == group.store.schema.entries.map(\.type))
    #expect(parsed.entry(forKey: "app.workers")?.traits == [.restartRequired, .deprecated])
  }

  @Test func unknownKeysAreReportedWithASuggestion() throws {
    let root = fileTree(
      "/etc/app/app.ini",
      [
        ("app.prot", .string("1")), ("app.port", .string("2")), ("app.endpoint.host", .string("x")),
        ("other.key", .string("y")),
      ])
    let group = SchemaSettings(store: SettingsStore(layers: [StaticLayer(scope: .system, root: root)]))
    let unknown = group.store.diagnostics.filter { $0.error.code == .unknownKey }
    #expect(
      unknown.map(\.description) == [
        "/etc/app/app.ini:2:8: warning: unknown key 'app.prot' (did you mean 'app.port'?)",
        "/etc/app/app.ini:5:8: warning: unknown key 'other.key'",
      ])
  }

  @Test func environmentNamesThatCollideAreAnError() throws {
    struct Colliding: SettingsGroup {
      @Setting var maxConnections = 1
      @Setting(key: "max_connections") var other = 2
    }
    let store = SettingsStore(layers: [EnvironmentLayer(prefix: "APP", variables: [:])])
    let group = Colliding(store: store)
    defer { withExtendedLifetime(group) {} }
    let collision = try #require(
      store.diagnostics.first { $0.error.code == .nameCollision && $0.severity == .error })
    #expect(
      collision.error.message
        == "settings 'colliding.maxConnections' and 'colliding.max_connections' both map to the environment variable APP_COLLIDING_MAX_CONNECTIONS"
    )
  }

  @Test func applyingASchemaTypesStringsAndFallsBack() throws {
    let group = SchemaSettings.inMemory()
    let schema = group.store.schema
    let low = fileTree("/usr/lib/app/app.json", [("app.port", .integer(81))])
    let high = fileTree(
      "/etc/app/app.ini",
      [("app.port", .string("80a")), ("app.verbose", .string("Yes")), ("app.tags", .string("x, y"))])
    let snapshot = LayerStack(layers: [
      schema.defaultsLayer, StaticLayer(scope: .vendor, root: low), StaticLayer(scope: .system, root: high),
    ]).load()
    let typed = schema.applied(to: snapshot)
    #expect(typed.entry(forKey: "app.port")?.value.kind == .integer(81))
    #expect(typed.entry(forKey: "app.port")?.origin.path == "/usr/lib/app/app.json")
    #expect(typed.entry(forKey: "app.verbose")?.value.kind == .bool(true))
    #expect(typed.value(forKey: "app.tags").map(ValueText.plain) == "[x, y]")
    #expect(typed.entry(forKey: "app.workers")?.origin == .codeDefault)
    #expect(typed.entry(forKey: "app.token")?.origin == .codeDefault)
    #expect(
      typed.redacting(schema.secretKeys).entry(forKey: "app.token")?.value.kind == .string("<redacted>"))
    let error = try #require(typed.diagnostics.first { $0.severity == .error })
    #expect(
      error.description.hasPrefix("/etc/app/app.ini:2:8: error: expected Int for app.port, found \"80a\""))
    let redacted = typed.redacting(["app.port"])
    #expect(redacted.entry(forKey: "app.port")?.value.kind == .string("<redacted>"))
  }
}
