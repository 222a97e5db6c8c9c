/// How a group's settings are found: the boxes its `init()` makes, in the order it makes them, and the
/// names of its stored properties, read by `Mirror` once per type.
///
/// Making a group (``SettingsGroup/init(store:section:)``) runs the type's `init()` inside a
/// ``GroupFrame``: each `@Setting` made meanwhile, nested groups' too, adds its box to the frame, in
/// declaration order. The layout says which property each box belongs to: the settings and nested
/// groups of the type, in declaration order, with the nested groups' layouts. It is checked once per
/// type against what `Mirror` finds in the first instance (the same boxes in the same order); a type
/// whose `init()` makes settings in another order, or makes some it does not keep, has no layout and
/// every instance is read by `Mirror`.
struct GroupLayout: Sendable {
  /// One stored property that is a setting or a nested group.
  enum Member: Sendable {
    case setting
    case group(GroupLayout)
  }

  /// The members, in declaration order, each with its name (without the `_` of a wrapper).
  let members: [(name: String, member: Member)]
  /// How the type's property names become keys.
  let keyStyle: SettingKey.Style
  /// How many boxes an instance holds, nested groups' included.
  let boxCount: Int
  /// Whether the type or a group nested in it declares rules (``SettingsGroup/rules``).
  let declaresRules: Bool
  /// Whether the type or a group nested in it declares linked sets (``SettingsGroup/linked``).
  let declaresLinks: Bool

  private static let cache = Locked<[ObjectIdentifier: GroupLayout?]>([:])

  /// The members of `group` read by `Mirror`: each setting with its box, each nested group with its
  /// value, in declaration order.
  static func reflected(_ group: any SettingsGroup) -> [(name: String, member: ReflectedMember)] {
    Mirror(reflecting: group).children.compactMap { child in
      guard var label = child.label else { return nil }
      if label.hasPrefix("_") { label.removeFirst() }
      if let setting = child.value as? any SettingProperty { return (label, .setting(setting.anyBox)) }
      if let nested = child.value as? any SettingsGroup { return (label, .group(nested)) }
      return nil
    }
  }

  /// A member of an instance, as `Mirror` finds it.
  enum ReflectedMember {
    case setting(any AnySettingBox)
    case group(any SettingsGroup)
  }

  /// The boxes of `group` and its nested groups, each with where it is, in declaration order, by
  /// `Mirror`.
  static func boxes(of group: any SettingsGroup) -> [PlacedBox] {
    var found: [PlacedBox] = []
    func walk(_ group: any SettingsGroup, _ parents: [String]) {
      let style = type(of: group).keyStyle
      for (name, member) in reflected(group) {
        switch member {
        case .setting(let box): found.append(PlacedBox(parents: parents, name: name, style: style, box: box))
        case .group(let nested): walk(nested, parents + [style.key(for: name)])
        }
      }
    }
    walk(group, [])
    return found
  }

  /// Whether instances of a type are read by a layout (`false`: by `Mirror`, or none made yet).
  static func readsByLayout(_ type: any SettingsGroup.Type) -> Bool {
    cache.withLock { $0[ObjectIdentifier(type)] ?? nil } != nil
  }

  /// The lifetime the settings of `group` share: its first setting's, nested groups' included.
  static func lifetime(of group: any SettingsGroup) -> GroupLifetime? {
    for child in Mirror(reflecting: group).children {
      if let setting = child.value as? any SettingProperty { return setting.lifetime }
      if let nested = child.value as? any SettingsGroup, let found = lifetime(of: nested) { return found }
    }
    return nil
  }

  /// The boxes of a group just made, each with its path: by the type's layout when it has one (the
  /// frame's boxes in order), else by `Mirror`.
  static func members<Group: SettingsGroup>(of group: Group, made boxes: [any AnySettingBox]) -> [PlacedBox] {
    let type = ObjectIdentifier(Group.self)
    if let known = cache.withLock({ $0[type] }) {
      if let layout = known, layout.boxCount == boxes.count { return layout.paths(of: boxes) }
      return Self.boxes(of: group)
    }
    let reflected = Self.boxes(of: group)
    let layout = GroupLayout(of: group)
    let checked =
      layout.boxCount == boxes.count && reflected.count == boxes.count
        && zip(reflected, boxes).allSatisfy { $0.box === $1 } ? layout : nil
    cache.withLock { $0[type] = .some(checked) }
    return reflected
  }

  /// Whether a group just made (after ``members(of:made:)``), or a group nested in it, declares rules:
  /// by its type's layout when it has one, else by `Mirror`.
  static func declaresRules<Group: SettingsGroup>(_ group: Group) -> Bool {
    if group.hasOwnRules { return true }
    if let layout = cache.withLock({ $0[ObjectIdentifier(Group.self)] ?? nil }) {
      return layout.declaresRules
    }
    return GroupRules.nestedGroups(of: group).contains { $0.hasOwnRules }
  }

  /// Whether a group just made, or a group nested in it, declares linked sets: as ``declaresRules(_:)``.
  static func declaresLinks<Group: SettingsGroup>(_ group: Group) -> Bool {
    if group.hasOwnLinks { return true }
    if let layout = cache.withLock({ $0[ObjectIdentifier(Group.self)] ?? nil }) {
      return layout.declaresLinks
    }
    return GroupRules.nestedGroups(of: group).contains { $0.hasOwnLinks }
  }

  /// The layout of an instance's type, read by `Mirror`.
  private init(of group: any SettingsGroup) {
    keyStyle = type(of: group).keyStyle
    var boxCount = 0
    var declaresRules = group.hasOwnRules
    var declaresLinks = group.hasOwnLinks
    members = Self.reflected(group).map { name, member in
      switch member {
      case .setting:
        boxCount += 1
        return (name, .setting)
      case .group(let nested):
        let layout = GroupLayout(of: nested)
        boxCount += layout.boxCount
        declaresRules = declaresRules || layout.declaresRules
        declaresLinks = declaresLinks || layout.declaresLinks
        return (name, .group(layout))
      }
    }
    self.boxCount = boxCount
    self.declaresRules = declaresRules
    self.declaresLinks = declaresLinks
  }

  /// The boxes made by an instance of the type, in order, each with its path.
  private func paths(of boxes: [any AnySettingBox]) -> [PlacedBox] {
    var found: [PlacedBox] = []
    found.reserveCapacity(boxes.count)
    var next = 0
    func walk(_ layout: GroupLayout, _ parents: [String]) {
      for (name, member) in layout.members {
        switch member {
        case .setting:
          found.append(PlacedBox(parents: parents, name: name, style: layout.keyStyle, box: boxes[next]))
          next += 1
        case .group(let nested): walk(nested, parents + [layout.keyStyle.key(for: name)])
        }
      }
    }
    walk(self, [])
    return found
  }
}

/// A setting's box and where it is in its group: the keys of the nested groups that lead to it, its
/// property's name, and how its group turns names into keys.
struct PlacedBox {
  var parents: [String]
  var name: String
  var style: SettingKey.Style
  var box: any AnySettingBox
}

/// The boxes made while a group's `init()` runs, and the lifetime they share.
final class GroupFrame: @unchecked Sendable {
  // @unchecked: a frame is used only by the thread running the group's `init()`, inside
  // `GroupFrame.$current.withValue`, and read once that returns.
  @TaskLocal static var current: GroupFrame?

  var boxes: [any AnySettingBox] = []
  let lifetime = GroupLifetime()
}
