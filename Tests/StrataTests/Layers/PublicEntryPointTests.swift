import Foundation
import Testing

@testable import Strata

/// The small public entry points that stand where machinery was public: hidden values, secrets by key,
/// typed reads of a tree and the store's JSON Schema.
@Suite struct PublicEntryPointTests {
  let vendor = tree(
    "/usr/lib/demo/demo.json", [("server.port", .integer(8080), 2), ("db.password", .string("a"), 3)])
  let system = tree(
    "/etc/demo/demo.ini", [("server.port", .string("8443"), 7), ("db.password", .string("b"), 8)])

  func snapshot(secretKeys: Set<String> = []) -> Snapshot {
    Snapshot(
      generation: 1,
      sources: [(Scope.vendor, vendor), (.system, system)].map {
        Snapshot.Source(scope: $0.0, document: Document(path: $0.1.origin.path ?? "x", root: $0.1))
      }, secretKeys: secretKeys)
  }

  @Test func hiddenValuesAreTheShadowedOnesAsText() throws {
    let port = try #require(snapshot().entry(forKey: "server.port"))
    #expect(port.hiddenValues.map(\.description) == ["8080 (/usr/lib/demo/demo.json:2:5)"])
    #expect(port.hiddenValues.map(\.origin) == port.shadowed.map(\.value.origin))
  }

  @Test func aSecretsHiddenValuesAreRedacted() throws {
    let password = try #require(snapshot(secretKeys: ["db"]).entry(forKey: "db.password"))
    #expect(password.hiddenValues.map(\.value) == [redactedText])
  }

  @Test func secretsAreFoundByKeyAndByTheTableAbove() {
    let s = snapshot(secretKeys: ["db"])
    #expect(s.isSecret(forKey: "db.password"))
    #expect(s.isSecret(forKey: "db"))
    #expect(!s.isSecret(forKey: "server.port"))
    #expect(!snapshot().isSecret(forKey: "db.password"))
  }

  @Test func aTreeDecodesAsASettingsValueDoes() throws {
    let port = try #require(snapshot().value(forKey: "server.port"))
    #expect(try port.decoded(as: Int.self, key: "server.port") == 8443)
    #expect(throws: StrataError.self) { try port.decoded(as: Bool.self, key: "server.port") }
  }

  @Test func theStoreExportsItsSchema() throws {
    let directory = FileManager.default.temporaryDirectory.path + "/entry-points-\(UUID().uuidString)"
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let path = directory + "/demo.json"
    let store = SettingsStore(layers: [FileLayer(scope: .user, files: [path])], writeTarget: .file(path))
    try store.saveValue(9000, forKey: "server.port")
    #expect(try String(contentsOfFile: path, encoding: .utf8).contains("9000"))
    let schema = store.jsonSchema(title: "demo")
    #expect(schema.value(at: "title")?.kind == .string("demo"))
  }
}
