import Testing

@testable import Strata

struct LayoutLimitSettings: SettingsGroup {
  @Setting var connections = 10
}

struct LayoutSettings: SettingsGroup {
  static var section: String { "layout" }
  @Setting var first = "base"
  @Setting var port = 8080
  let plain = 42
  let limits = LayoutLimitSettings()
  @Setting(key: "max_body") var maxBody = 1_024
  var note = "not a setting"
}

/// An optional nested group: `Mirror` finds it; when it is `nil`, the boxes made are fewer than the
/// layout says, and the instance is read by `Mirror`.
struct OptionalNestedSettings: SettingsGroup {
  static var section: String { "optionalnested" }
  @Setting var port = 1
  var limits: LayoutLimitSettings? = LayoutLimitSettings()
}

/// A group whose own `init()` makes its settings in another order than it declares them.
struct ReorderedSettings: SettingsGroup {
  static var section: String { "reordered" }
  @Setting var a: Int
  @Setting var b: Int
  init() {
    _b = Setting(wrappedValue: 2)
    _a = Setting(wrappedValue: 1)
  }
}

/// The settings a group's `init()` makes are named by the type's layout once it agrees with `Mirror`.
@Suite struct GroupLayoutTests {
  @Test func aGroupReadByItsLayoutHasWhatMirrorFinds() throws {
    let store = SettingsStore.inMemory(
      try parse(
        #"{"layout": {"port": 9, "first": "from file", "max_body": 7, "limits": {"connections": 3}}}"#,
        as: JSONFormat()
      ).root)
    let first = LayoutSettings(store: store)
    #expect(GroupLayout.readsByLayout(LayoutSettings.self))
    let second = LayoutSettings(store: store)
    for group in [first, second] {
      let reflected = GroupLayout.boxes(of: group)
      #expect(reflected.map(\.name) == ["first", "port", "connections", "maxBody"])
      #expect(reflected.map(\.parents) == [[], [], ["limits"], []])
      #expect(
        group.allSettings.map(\.key) == [
          "layout.first", "layout.port", "layout.limits.connections", "layout.max_body",
        ])
      #expect(group.port == 9 && group.first == "from file" && group.maxBody == 7)
      #expect(group.limits.connections == 3)
    }
  }

  @Test func aTypeTheLayoutCannotDescribeKeepsMirror() throws {
    let store = SettingsStore.inMemory(
      try parse(#"{"reordered": {"a": 5, "b": 6}}"#, as: JSONFormat()).root)
    let group = ReorderedSettings(store: store)
    #expect(!GroupLayout.readsByLayout(ReorderedSettings.self))
    #expect(group.a == 5 && group.b == 6)
    #expect(group.allSettings.map(\.key) == ["reordered.a", "reordered.b"])
  }

  @Test func anOptionalNestedGroupIsFound() throws {
    let store = SettingsStore.inMemory(
      try parse(#"{"optionalnested": {"port": 5, "limits": {"connections": 4}}}"#, as: JSONFormat()).root)
    let group = OptionalNestedSettings(store: store)
    #expect(group.port == 5)
    #expect(group.limits?.connections == 4)
    #expect(group.allSettings.map(\.key) == ["optionalnested.port", "optionalnested.limits.connections"])
  }
}
