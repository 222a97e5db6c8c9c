import Testing

@testable import Strata

/// The registry keeps each key once (in its declared keys) and finds the boxes through it: these check
/// that boxes and keys stay in step as groups come and go.
@Suite struct SettingRegistryTests {
  struct Renamed: SettingsGroup {
    static var section: String { "renamed" }
    @Setting(aliases: ["oldPort"]) var port = 1
    @Setting var host = "h"
  }

  struct Pair: SettingsGroup {
    @Setting var first = 1
    @Setting var second = true
  }

  func registry(_ store: SettingsStore) -> SettingRegistry { store.state.withLock { $0.registry } }

  func box<Value>(_ record: SettingRecord<Value>) -> any AnySettingBox { record.box }

  @Test func keysAndBoxesStayInStepWhenAGroupInTheMiddleGoes() {
    let store = SettingsStore.inMemory()
    let a = Pair(store: store, section: "a")
    let c: Pair
    do {
      let b = Pair(store: store, section: "b")
      c = Pair(store: store, section: "c")
      #expect(store.declaredKeys == ["a.first", "a.second", "b.first", "b.second", "c.first", "c.second"])
      #expect(registry(store).declared.flags == ["a.second", "b.second", "c.second"])
      #expect(registry(store)["b.first"]?.first === box(b.$first))
    }
    #expect(store.declaredKeys == ["a.first", "a.second", "c.first", "c.second"])
    let after = registry(store)
    #expect(after["b.first"] == nil)
    #expect(after["c.second"]?.first === box(c.$second))
    #expect(after["a.first"]?.first === box(a.$first))
    #expect(after.declaredBoxes.map(\.key) == ["a.first", "a.second", "c.first", "c.second"])
    #expect(after.declared.flags == ["a.second", "c.second"])
    #expect(after.boxes(reading: ["c.first", "b.first"]).map(\.key) == ["c.first"])
  }

  @Test func aKeyTwoGroupsDeclareStaysUntilBothAreGone() {
    let store = SettingsStore.inMemory()
    do {
      let second = Pair(store: store, section: "shared")
      do {
        let first = Pair(store: store, section: "shared")
        #expect(registry(store)["shared.first"]?.count == 2)
        #expect(registry(store)["shared.first"]?.first === box(second.$first))
        #expect(registry(store)["shared.first"]?.last === box(first.$first))
        #expect(store.declaredKeys == ["shared.first", "shared.second"])
      }
      #expect(registry(store)["shared.first"]?.count == 1)
      #expect(registry(store)["shared.first"]?.first === box(second.$first))
      #expect(store.declaredKeys == ["shared.first", "shared.second"])
    }
    #expect(registry(store)["shared.first"] == nil)
    #expect(store.declaredKeys.isEmpty)
    #expect(registry(store).allBoxes.isEmpty)
  }

  @Test func anOldNameIsDeclaredWithoutABoxOfItsOwn() {
    let store = SettingsStore.inMemory()
    do {
      let group = Renamed(store: store)
      #expect(store.declaredKeys == ["renamed.port", "renamed.oldPort", "renamed.host"])
      let found = registry(store)
      #expect(found["renamed.oldPort"] == nil)  // an old name, not a setting's key
      #expect(found.declaredBoxes.map(\.key) == ["renamed.port", "renamed.host"])
      #expect(found.boxes(reading: ["renamed.oldPort"]).first === box(group.$port))
      #expect(found.declared.keys(named: "RENAMED_OLD_PORT") == ["renamed.oldPort"])
    }
    #expect(store.declaredKeys.isEmpty)
    #expect(registry(store).boxes(reading: ["renamed.oldPort"]).isEmpty)
  }
}
