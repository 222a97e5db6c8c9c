import Foundation
import Synchronization
import Testing

@testable import Strata

/// A setting of a large configuration costs one allocation of its own: what few settings use (streams,
/// observers, a rejected edit; a declared key, old keys, attributes, validation) is made only when used.
@Suite struct SettingBoxFootprintTests {
  final class Plain: SettingsGroup, @unchecked Sendable {
    override class var section: String { "plain" }
    @Setting var port = 8080
    @Setting(key: "max_connections", validation: .range(1...100)) var maxConnections = 10
  }

  func box<Value>(_ record: SettingRecord<Value>) -> SettingBox<Value> { record.box }

  @Test func aSettingNobodyListensToHasNoRareState() throws {
    let settings = Plain(store: .inMemory(try parse("[plain]\nport = 9000\n", as: INIFormat()).root))
    #expect(box(settings.$port).state.withLock { $0.rare == nil && $0.value == 9000 })
    _ = settings.$port.changes
    #expect(box(settings.$port).state.withLock { $0.rare != nil })
    // A typed read through the group is an observable read: it installs the Observation hook there.
    #expect(box(settings.$maxConnections).state.withLock { $0.rare == nil })
    #expect(settings.maxConnections == 10)
    #expect(box(settings.$maxConnections).state.withLock { $0.rare?.observe != nil })
  }

  @Test func aRejectedEditMakesTheRareStateAndStillReportsIt() throws {
    let dir = FileManager.default.temporaryDirectory.path + "/footprint-\(UUID().uuidString)"
    defer { try? FileManager.default.removeItem(atPath: dir) }
    try write("[plain]\nport = 9000\n", to: dir + "/app.ini")
    let store = SettingsStore(layers: [FileLayer(scope: .system, files: [dir + "/app.ini"])])
    let settings = Plain(store: store)
    #expect(settings.port == 9000)
    try write("[plain]\nport = nine\n", to: dir + "/app.ini")
    store.reload()
    #expect(settings.port == 9000)  // the running value is kept
    #expect(box(settings.$port).state.withLock { $0.rejection != nil && $0.isHoldingLastGood })
    try write("[plain]\nport = 9001\n", to: dir + "/app.ini")
    store.reload()
    #expect(settings.port == 9001)
    #expect(box(settings.$port).state.withLock { $0.rejection == nil && !$0.isHoldingLastGood })
  }

  @Test func onlyADeclarationThatSaysMoreKeepsItOutOfLine() {
    let settings = Plain(store: .inMemory())
    #expect(box(settings.$port).declaredKey == nil)
    #expect(box(settings.$port).validation == nil)
    #expect(box(settings.$maxConnections).declaredKey == "max_connections")
    #expect(box(settings.$maxConnections).validation?.check(101) == false)
    #expect(settings.$maxConnections.key == "plain.max_connections")
  }

  @Test func settingsOfOneTypeShareOneCoding() {
    struct Marker: Codable, Sendable { var value = 0 }
    var made = 0
    for _ in 0..<3 {
      _ = SharedCodings.coding(.codable, for: Marker.self) {
        made += 1
        return SettingCoding(decode: { _, _ in Marker() }, encode: { _ in nil })
      }
    }
    #expect(made == 1)
    // Another way of coding the same type is another coding.
    _ = SharedCodings.coding(.rawValue, for: Marker.self) {
      made += 1
      return SettingCoding(decode: { _, _ in Marker() }, encode: { _ in nil })
    }
    #expect(made == 2)
  }
}
