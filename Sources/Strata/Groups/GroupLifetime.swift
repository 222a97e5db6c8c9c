public import Observation
import Synchronization

/// What one made group shares among its settings: its binding to a store, the Observation registrar
/// its typed reads report to, and its end.
///
/// Every `@Setting` of the group (nested groups' too) holds it, so it lives as long as any copy of the
/// group: when the last one goes, its deinit unregisters the settings, ends the group's change
/// streams and, before ``SettingsStore/requireAll()``, leaves a note of the released group.
@usableFromInline
final class GroupLifetime: Observable, Sendable {
  @usableFromInline let registrar = ObservationRegistrar()
  private let binding = Mutex<Binding?>(nil)

  /// The store, the group's type and section, and its boxes.
  struct Binding {
    var store: SettingsStore
    var typeName: String
    var section: String
    /// Each an `any AnySettingBox`, kept as a plain reference: half the memory of the existential, for
    /// a list read only when the group ends.
    var boxes: [AnyObject]
  }

  /// Binds the group's settings: each box to its full key in `section`, then all of them registered.
  func bind(store: SettingsStore, typeName: String, section: String, members: [PlacedBox]) {
    for placed in members {
      // A nested group's keys live under its property's name; the setting's own key is declared or
      // its property's name.
      var sectionPath = section
      for parent in placed.parents { sectionPath = SettingKey.appending(parent, to: sectionPath) }
      func full(_ local: String) -> String { sectionPath.isEmpty ? local : sectionPath + "." + local }
      let box = placed.box
      let local = box.declaredKey ?? SettingKey.join([placed.style.key(for: placed.name)])
      box.bind(
        store: store, key: full(local), aliases: box.declaredAliases.map(full), propertyName: placed.name)
    }
    let boxes = members.map(\.box)
    binding.withLock {
      $0 = Binding(store: store, typeName: typeName, section: section, boxes: boxes.map { $0 as AnyObject })
    }
    store.register(boxes)
  }

  /// The store the group is bound to, if it is.
  var store: SettingsStore? { binding.withLock { $0?.store } }

  /// The section the group was made with, if it is bound.
  var section: String? { binding.withLock { $0?.section } }

  deinit {
    guard let binding = binding.withLock({ $0 }) else { return }
    let store = binding.store
    let boxes = binding.boxes.compactMap { $0 as? any AnySettingBox }
    if store.notesReleasedGroups, let first = boxes.first {
      store.noteReleased(
        ReleasedGroup(
          typeName: binding.typeName, section: binding.section, firstKey: first.key,
          requiredKeys: boxes.filter(\.isRequired).map(\.key)))
    }
    store.unregister(boxes)
    store.unregisterRules(owner: ObjectIdentifier(self))
    for box in boxes { box.finish() }
    store.eventHub.finish(owner: ObjectIdentifier(self))
  }

  /// What Observation knows a setting by: the key path to this subscript with the setting's box.
  subscript(observedSetting box: ObjectIdentifier) -> ObjectIdentifier { box }
}
