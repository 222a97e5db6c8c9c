@_spi(Reflection) import Swift

/// Where a group class keeps its settings and nested groups: each stored property's name, offset and
/// kind, found once per class, so that making a group reads its settings at known offsets instead of
/// reflecting over every property (`Mirror`: a quarter of making 10,000 settings, most of it looking up
/// each property's type by its mangled name, again for every instance).
///
/// The layout comes from the runtime's field records (`_forEachField`, the walk `Mirror` itself does)
/// and is checked once per class against `Mirror`: a class whose layout does not give exactly the members
/// `Mirror` finds (a `weak` nested group, an optional one, anything unforeseen) has no layout and keeps
/// using `Mirror`.
struct GroupLayout: @unchecked Sendable {
  // @unchecked: the metatypes are immutable runtime metadata.

  /// One stored property that is a setting or a nested group.
  enum Member {
    case setting(offset: Int, type: any SettingProperty.Type)
    case group(offset: Int)
  }

  /// The members, superclass properties first, each with its name (without the `_` of a wrapper).
  let members: [(name: String, member: Member)]

  private static let cache = Locked<[ObjectIdentifier: GroupLayout?]>([:])

  /// The settings and nested groups of `group`, in declaration order (superclasses first).
  static func members(of group: SettingsGroup) -> (
    settings: [(name: String, box: any AnySettingBox)], groups: [(name: String, group: SettingsGroup)]
  ) {
    let type = ObjectIdentifier(Swift.type(of: group))
    if let known = cache.withLock({ $0[type] }) {
      return known.map { $0.read(group) } ?? reflected(group)
    }
    let layout = GroupLayout(of: Swift.type(of: group))
    let reflected = reflected(group)
    let checked = layout.flatMap { layout in layout.agrees(with: reflected, on: group) ? layout : nil }
    cache.withLock { $0[type] = .some(checked) }
    return reflected
  }

  /// Whether instances of a class are read by a layout (`false`: by `Mirror`, or not made yet).
  static func readsByLayout(_ type: SettingsGroup.Type) -> Bool {
    cache.withLock { $0[ObjectIdentifier(type)] ?? nil } != nil
  }

  /// The members `Mirror` finds.
  static func reflected(_ group: SettingsGroup) -> (
    settings: [(name: String, box: any AnySettingBox)], groups: [(name: String, group: SettingsGroup)]
  ) {
    var settings: [(name: String, box: any AnySettingBox)] = []
    var groups: [(name: String, group: SettingsGroup)] = []
    var mirror: Mirror? = Mirror(reflecting: group)
    var levels: [Mirror] = []
    while let current = mirror, current.subjectType != SettingsGroup.self {
      levels.append(current)
      mirror = current.superclassMirror
    }
    for level in levels.reversed() {
      for child in level.children {
        guard var label = child.label else { continue }
        if label.hasPrefix("_") { label.removeFirst() }
        if let setting = child.value as? any SettingProperty {
          settings.append((label, setting.anyBox))
        } else if let nested = child.value as? SettingsGroup {
          groups.append((label, nested))
        }
      }
    }
    return (settings, groups)
  }

  /// The layout of a group class from its field records, or `nil` when the runtime has none.
  private init?(of type: SettingsGroup.Type) {
    var members: [(name: String, member: Member)] = []
    // `.classType` (1 << 0), spelled out: the standard library declares it a `static var`, which Swift 6
    // does not let code read from any thread. The walk covers the superclasses' fields, first.
    let complete = _forEachField(of: type, options: _EachFieldOptions(rawValue: 1 << 0)) {
      name, offset, fieldType, _ in
      var label = String(cString: name)
      if label.hasPrefix("_") { label.removeFirst() }
      if let setting = fieldType as? any SettingProperty.Type {
        members.append((label, .setting(offset: offset, type: setting)))
      } else if fieldType is SettingsGroup.Type {
        members.append((label, .group(offset: offset)))
      }
      return true
    }
    guard complete else { return nil }
    self.members = members
  }

  /// Whether reading `group` by this layout finds what `Mirror` found: the same names, the same boxes
  /// and the same nested groups, in the same order.
  private func agrees(
    with reflected: (
      settings: [(name: String, box: any AnySettingBox)], groups: [(name: String, group: SettingsGroup)]
    ),
    on group: SettingsGroup
  ) -> Bool {
    let read = read(group)
    return read.settings.count == reflected.settings.count && read.groups.count == reflected.groups.count
      && zip(read.settings, reflected.settings).allSatisfy { $0.name == $1.name && $0.box === $1.box }
      && zip(read.groups, reflected.groups).allSatisfy { $0.name == $1.name && $0.group === $1.group }
  }

  /// The members of an instance, read at their offsets. The instance is fully initialized (the
  /// subclass's stored properties are, before `SettingsGroup.init` runs) and alive for the call.
  private func read(_ group: SettingsGroup) -> (
    settings: [(name: String, box: any AnySettingBox)], groups: [(name: String, group: SettingsGroup)]
  ) {
    var settings: [(name: String, box: any AnySettingBox)] = []
    var groups: [(name: String, group: SettingsGroup)] = []
    settings.reserveCapacity(members.count)
    withExtendedLifetime(group) {
      let base = UnsafeRawPointer(Unmanaged.passUnretained(group).toOpaque())
      for (name, member) in members {
        switch member {
        case .setting(let offset, let type):
          settings.append((name, Self.box(of: type, at: base + offset)))
        case .group(let offset):
          groups.append((name, base.load(fromByteOffset: offset, as: SettingsGroup.self)))
        }
      }
    }
    return (settings, groups)
  }

  private static func box<Property: SettingProperty>(of _: Property.Type, at pointer: UnsafeRawPointer)
    -> any AnySettingBox
  {
    pointer.assumingMemoryBound(to: Property.self).pointee.anyBox
  }
}
