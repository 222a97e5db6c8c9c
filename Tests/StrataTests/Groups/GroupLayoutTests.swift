import Testing

@testable import Strata

class LayoutBaseSettings: SettingsGroup, @unchecked Sendable {
  override class var section: String { "layout" }
  @Setting var inherited = "base"
}

final class LayoutLimitSettings: SettingsGroup, @unchecked Sendable {
  @Setting var connections = 10
}

final class LayoutSettings: LayoutBaseSettings, @unchecked Sendable {
  @Setting var port = 8080
  let plain = 42
  let limits = LayoutLimitSettings()
  @Setting(key: "max_body") var maxBody = 1_024
  var note = "not a setting"
}

/// An optional nested group: `Mirror` finds it, the field records see an `Optional`; no layout.
final class OptionalNestedSettings: SettingsGroup, @unchecked Sendable {
  override class var section: String { "optionalnested" }
  @Setting var port = 1
  let limits: LayoutLimitSettings? = LayoutLimitSettings()
}

/// Groups are read at their fields' offsets once a class's layout agrees with `Mirror`.
@Suite struct GroupLayoutTests {
  @Test func aGroupReadByItsLayoutHasWhatMirrorFinds() throws {
    let store = SettingsStore.inMemory(
      try parse(
        #"{"layout": {"port": 9, "inherited": "from file", "max_body": 7, "limits": {"connections": 3}}}"#,
        as: JSONFormat()
      ).root)
    let first = LayoutSettings(store: store)
    #expect(GroupLayout.readsByLayout(LayoutSettings.self))
    let second = LayoutSettings(store: store)
    for group in [first, second] {
      let read = GroupLayout.members(of: group)
      let reflected = GroupLayout.reflected(group)
      #expect(read.settings.map(\.name) == ["inherited", "port", "maxBody"])
      #expect(read.settings.map(\.name) == reflected.settings.map(\.name))
      #expect(zip(read.settings, reflected.settings).allSatisfy { $0.box === $1.box })
      #expect(read.groups.map(\.name) == ["limits"])
      #expect(read.groups.first?.group === group.limits)
      #expect(group.port == 9 && group.inherited == "from file" && group.maxBody == 7)
      #expect(group.limits.connections == 3)
    }
  }

  @Test func aClassTheLayoutCannotDescribeKeepsMirror() throws {
    let store = SettingsStore.inMemory(
      try parse(#"{"optionalnested": {"port": 5, "limits": {"connections": 4}}}"#, as: JSONFormat()).root)
    let group = OptionalNestedSettings(store: store)
    #expect(!GroupLayout.readsByLayout(OptionalNestedSettings.self))
    #expect(group.port == 5)
    #expect(group.limits?.connections == 4)
  }
}
