import Foundation
import StrataPlatform
import Synchronization
import Testing

@testable import Strata

/// A setting of a large configuration costs two allocations of its own (the box, and its state with its
/// mutex): what few settings use (streams, observers, a rejected edit; a declared key, old keys,
/// attributes, validation) is made only when used, and the group and the store's registry keep no
/// more per setting than they need.
@Suite struct SettingBoxFootprintTests {
  struct Plain: SettingsGroup {
    static var section: String { "plain" }
    @Setting var port = 8080
    @Setting(key: "max_connections", validation: .range(1...100)) var maxConnections = 10
  }

  func box<Value>(_ record: SettingRecord<Value>) -> SettingBox<Value> { record.box }

  /// The bytes malloc gave an object (glibc's `malloc_usable_size`, through the platform layer).
  func allocatedBytes(_ object: AnyObject) -> Int {
    withExtendedLifetime(object) {
      guard let size = AllocationSize.of(Unmanaged.passUnretained(object).toOpaque()) else {
        Issue.record("no malloc_usable_size")
        return 0
      }
      return size
    }
  }

  @Test(.linuxOnly("glibc's malloc_usable_size")) func theStateAndItsMutexShareOneAllocation() {
    let settings = Plain(store: .inMemory())
    let storage = box(settings.$port).lockedState.storage
    let start = UInt(bitPattern: Unmanaged.passUnretained(storage).toOpaque())
    let end = start + UInt(allocatedBytes(storage))
    let (state, mutex) = storage.withUnsafeMutablePointers { (UInt(bitPattern: $0), UInt(bitPattern: $1)) }
    // Both inside the storage object itself, the mutex after the state: no allocation of their own.
    #expect(state > start && state + UInt(MemoryLayout<SettingBox<Int>.State>.size) <= mutex)
    #expect(mutex + UInt(MemoryLayout<MutexPrimitive>.size) <= end)
    // The box refers to it by one word.
    #expect(MemoryLayout<Locked<SettingBox<Int>.State>>.size == MemoryLayout<UnsafeRawPointer>.size)
    // The lock still works through it.
    #expect(box(settings.$port).readState { $0.key } == "plain.port")
  }

  /// The bytes an instance of a class asks malloc for: the instance size in its class metadata, which on
  /// Linux (no Objective-C fields) follows the kind, the superclass, the flags and the address point.
  /// What malloc hands back can be one chunk larger (glibc gives a whole free chunk when splitting it
  /// would leave less than its minimum), so budgets are asserted on this, not on the usable size.
  func requestedBytes(_ type: AnyClass) -> Int {
    let metadata = unsafeBitCast(type, to: UnsafeRawPointer.self)
    return Int(metadata.load(fromByteOffset: 24, as: UInt32.self))
  }

  @Test(.linuxOnly("glibc's chunk sizes and Linux class metadata"))
  func theBoxAndItsStateStayWithinTheirBudget() {
    let settings = Plain(store: .inMemory())
    // The coding is one word (a reference to its two functions), the restart flag a bit of the traits.
    #expect(MemoryLayout<SettingCoding<Int>>.size == MemoryLayout<UnsafeRawPointer>.size)
    // An `Int` setting's state: six words, the 9-byte value with the three flags in its padding, and
    // the 33-byte origin last (105 bytes; the store is the read cache's, the old keys are rare).
    #expect(MemoryLayout<SettingBox<Int>.State>.size <= 105)
    // The box: header, default, traits, declaration, coding, state, read cache and key path: at most
    // 120 bytes asked, one 128-byte glibc chunk (16-byte multiples with an 8-byte header).
    let boxBytes = requestedBytes(SettingBox<Int>.self)
    #expect((1...120).contains(boxBytes))
    #expect(allocatedBytes(box(settings.$port)) >= boxBytes)
    // The state with its mutex: header and state, then one 40-byte pthread mutex at its alignment: at
    // most 168 bytes asked, one 176-byte chunk.
    let header = requestedBytes(LockedStorage<SettingBox<Int>.State>.self)
    let alignment = MemoryLayout<MutexPrimitive>.alignment
    let storageBytes = (header + alignment - 1) / alignment * alignment + MemoryLayout<MutexPrimitive>.stride
    #expect((1...168).contains(storageBytes))
    #expect(allocatedBytes(box(settings.$port).lockedState.storage) >= storageBytes)
  }

  struct Renamed: SettingsGroup {
    static var section: String { "renamedfootprint" }
    @Setting(aliases: ["oldPort"]) var port = 1
  }

  @Test func onlyARenamedSettingKeepsOldKeysInItsRareState() {
    let settings = Renamed(store: .inMemory())
    #expect(box(settings.$port).readState { $0.rare?.aliases } == ["renamedfootprint.oldPort"])
    #expect(settings.$port.aliases == ["renamedfootprint.oldPort"])
    let plain = Plain(store: .inMemory())
    #expect(box(plain.$port).readState { $0.rare == nil && $0.aliases.isEmpty })
  }

  @Test func theBoxHoldsItsStoreThroughTheReadCacheAndLetsItGo() {
    weak var released: SettingsStore?
    do {
      let store = SettingsStore.inMemory()
      released = store
      let settings = Plain(store: store)
      #expect(box(settings.$port).store === store)
      let bound = box(settings.$port).cache.isBound
      #expect(bound)
    }
    // The group, its boxes and their caches are gone: the caches released the store.
    #expect(released == nil)
  }

  @Test func aReleasedGroupUnregistersItsSettings() throws {
    let store = SettingsStore.inMemory(
      try parse("[plain]\nport = 9000\nmax_connections = 20\n", as: INIFormat()).root)
    var group: Plain? = Plain(store: store)
    #expect(GroupLayout.readsByLayout(Plain.self))
    // Found again in the group's properties: introspection, and the registration the deinit undoes.
    #expect(group?.allSettings.map(\.key) == ["plain.port", "plain.max_connections"])
    #expect(group?.allSettings.map(\.propertyName) == ["port", "maxConnections"])
    #expect(store.declaredKeys == ["plain.port", "plain.max_connections"])
    #expect(group?.port == 9000 && group?.maxConnections == 20)
    group = nil
    #expect(store.declaredKeys.isEmpty)
  }

  @Test func declaredKeysFindKeysThroughTheirNames() {
    // `a.b` and `a_b` both generate the name `A_B`.
    var declared = DeclaredKeys(["a.b", "a_b", "c", "a.b"])
    #expect(declared.keys == ["a.b", "a_b", "c"])
    #expect(declared.contains("a.b") && declared.contains("a_b") && declared.contains("c"))
    #expect(!declared.contains("a") && !declared.contains("a.c"))
    #expect(declared.keys(named: "A_B") == ["a.b", "a_b"])
    declared.remove("a.b")
    #expect(!declared.contains("a.b") && declared.contains("a_b"))
    #expect(declared.keys(named: "A_B") == ["a_b"])
    #expect(declared.keys == ["a_b", "c"])
    declared.remove("a.b")  // not declared: nothing changes
    #expect(declared.keys == ["a_b", "c"])
    declared.add("flag", isFlag: true)
    #expect(declared.flags == ["flag"] && declared.contains("flag"))
    declared.remove("flag")
    #expect(declared.flags.isEmpty && !declared.contains("flag"))
  }

  @Test func aSettingNobodyListensToHasNoRareState() throws {
    let settings = Plain(store: .inMemory(try parse("[plain]\nport = 9000\n", as: INIFormat()).root))
    #expect(box(settings.$port).readState { $0.rare == nil && $0.value == 9000 })
    _ = settings.$port.changes
    #expect(box(settings.$port).readState { $0.rare != nil })
    // A typed read through the group is an observable read: it installs the Observation hook there.
    #expect(box(settings.$maxConnections).readState { $0.rare == nil })
    #expect(settings.maxConnections == 10)
    #expect(box(settings.$maxConnections).readState { $0.rare?.observe != nil })
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
    #expect(box(settings.$port).readState { $0.rejection != nil && $0.isHoldingLastGood })
    try write("[plain]\nport = 9001\n", to: dir + "/app.ini")
    store.reload()
    #expect(settings.port == 9001)
    #expect(box(settings.$port).readState { $0.rejection == nil && !$0.isHoldingLastGood })
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
