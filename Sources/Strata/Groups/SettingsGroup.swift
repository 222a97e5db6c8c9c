public import Observation
import Synchronization

/// A group of typed settings: subclass it and declare ``Setting`` properties.
///
/// <!-- snippet: Tests/DocSnippets/GroupSymbolSnippets.swift#SettingsGroup -->
/// ```swift
/// final class ServerSettings: SettingsGroup, @unchecked Sendable {  // section "server"
///   @Setting var host = "127.0.0.1"
///   @Setting(traits: .restartRequired) var port = 8080
///   let limits = LimitSettings()  // a nested group: section "server.limits"
/// }
/// let server = ServerSettings(store: store)
/// print(server.port)  // typed, cached, safe from any thread
/// print(server.$port.origin)  // where the value came from
/// ```
///
/// The section is the class name minus a `Settings` suffix, lower-camel-cased; override ``section`` to
/// choose another. Properties are found once, at init, by reflection (walking superclasses too, so a
/// subclass inherits its parent's settings). Groups are `Observable`: `withObservationTracking` and
/// `Observations` see changes of exactly the settings they read.
///
/// Swift 6 asks every subclass of an `@unchecked Sendable` class to restate the conformance, hence
/// `, @unchecked Sendable` on each group: it is safe, because all of a group's mutable state lives in
/// its settings' locks and the store.
open class SettingsGroup: @unchecked Sendable, Observable {
  // @unchecked: `store`, `sectionPath`, `reflectedSettings` and `groups` are set during init (and by an enclosing group's
  // init, for a nested group) before the group can be shared; afterwards they are only read.

  /// The section this group's keys live under, such as `server`. Override to choose another: it is a
  /// key (see ``SettingKey``), so `"app.server"` nests and `#""app.server""#` is one name.
  open class var section: String { defaultSection(for: String(describing: self)) }

  /// How property names become keys (default: as declared).
  open class var keyStyle: KeyStyle { .asDeclared }

  /// The store the group reads from and writes to.
  public private(set) var store: SettingsStore
  /// The full dotted section, such as `server.limits` for a nested group.
  public private(set) var sectionPath: String
  @usableFromInline let registrar = ObservationRegistrar()
  /// The settings, kept only for a class that `Mirror` reads (see ``GroupLayout``): the settings of a
  /// class read by its layout are found again in the group's own properties when needed (binding,
  /// introspection, deinit), so that the group keeps no list of them (a large configuration's groups
  /// would hold a name and a box reference per setting).
  private(set) var reflectedSettings: [(name: String, box: any AnySettingBox)]?
  private var groups: [(name: String, group: SettingsGroup)] = []
  /// Whether the settings are registered with `store` (from the first bind on).
  private var isRegistered = false
  /// Whether the group is a nested group, bound by its parent (its release is its parent's).
  private var isNested = false

  /// Creates the group and binds it to a store.
  ///
  /// Keep the group for as long as the program reads it: its settings are declared on the store while
  /// it lives. A group released before ``SettingsStore/requireAll()`` (`_ = DatabaseSettings(store:
  /// store)`) is named by a warning in the store's diagnostics, and `requireAll()` still checks that its
  /// required keys are set.
  /// - Parameters:
  ///   - store: the store; by default ``SettingsStore/current``, else a new in-memory store that holds
  ///     only the defaults. A group left on that private store (not a nested group, which moves into
  ///     its parent's) reads its defaults whatever the files say: that store's diagnostics say so, and a
  ///     debug build says so on standard error at the first read, once per class.
  ///   - section: the section of this instance (a key, such as `tenants.acme`) instead of the class's
  ///     ``section``, so that one class serves sets of groups made at run time:
  ///     `TenantSettings(store: store, section: "tenants.\(name)")`.
  public required init(store: SettingsStore? = nil, section: String? = nil) {
    self.store = store ?? SettingsStore.current ?? FallbackStore.make(for: String(describing: Self.self))
    self.sectionPath = section ?? Self.section
    let settings: [(name: String, box: any AnySettingBox)]
    (settings, groups) = GroupLayout.members(of: self)
    if !GroupLayout.readsByLayout(type(of: self)) { reflectedSettings = settings }
    bind(store: self.store, sectionPath: sectionPath, settings: settings)
  }

  deinit {
    let settings = self.settings
    if isRegistered && !isNested && store.notesReleasedGroups {
      let boxes = settings.map(\.box) + groups.flatMap { $0.group.allSettings.map(\.box) }
      if let first = boxes.first {
        store.noteReleased(
          ReleasedGroup(
            typeName: String(describing: type(of: self)), section: sectionPath, firstKey: first.key,
            requiredKeys: boxes.filter(\.isRequired).map(\.key)))
      }
    }
    if isRegistered { store.unregister(settings.map(\.box)) }
    for (_, box) in settings { box.finish() }
    store.eventHub.finish(owner: ObjectIdentifier(self))
  }

  /// The settings of this group (not of its nested groups), in declaration order.
  private var settings: [(name: String, box: any AnySettingBox)] {
    reflectedSettings ?? GroupLayout.members(of: self).settings
  }

  /// A group over an in-memory store holding `values` (a table whose keys include this group's section).
  public static func inMemory(_ values: SettingValue = .emptyTable(origin: .runtime)) -> Self {
    Self(store: .inMemory(values))
  }

  /// Binds every setting (and nested group) of a nested group to its parent's `store` under
  /// `sectionPath`.
  func bind(store newStore: SettingsStore, sectionPath newPath: String) {
    isNested = true
    bind(store: newStore, sectionPath: newPath, settings: settings)
  }

  /// Binds `settings`, this group's, and every nested group to `store` under `sectionPath`.
  private func bind(
    store newStore: SettingsStore, sectionPath newPath: String,
    settings: [(name: String, box: any AnySettingBox)]
  ) {
    // Only a re-bind (a nested group moving into its parent's store) has registrations to undo.
    if isRegistered { store.unregister(settings.map(\.box)) }
    store = newStore
    sectionPath = newPath
    let style = type(of: self).keyStyle
    func full(_ local: String) -> String { newPath.isEmpty ? local : newPath + "." + local }
    for (name, box) in settings {
      let local = box.declaredKey ?? SettingKey.join([style.key(for: name)])
      box.bind(
        store: newStore, key: full(local), aliases: box.declaredAliases.map(full), propertyName: name)
    }
    for (name, group) in groups {
      group.bind(store: newStore, sectionPath: SettingKey.appending(style.key(for: name), to: newPath))
    }
    newStore.register(settings.map(\.box))
    isRegistered = true
  }

  /// Every setting of this group and its nested groups, as type-erased records.
  public var allSettings: [AnySettingRecord] {
    settings.map { AnySettingRecord(box: $0.box) } + groups.flatMap(\.group.allSettings)
  }

  /// Every later generation that changed any setting of this group or of its nested groups, once
  /// each: the full keys of the settings whose values it changed, in declaration order. A rejected edit
  /// (the running value kept), a change that waits for a restart, or a value that moved to another
  /// file unchanged is not a change. It ends at the store's
  /// ``SettingsStore/shutdown()`` or when the group is released.
  ///
  /// <!-- snippet: Tests/DocSnippets/GroupSymbolSnippets.swift#GroupChanges -->
  /// ```swift
  /// for await changed in server.changes {
  ///   let (host, port) = server.withConsistentSnapshot { ($0.host, $0.port) }
  ///   print("\(changed.joined(separator: ", ")) changed: now \(host):\(port)")
  /// }
  /// ```
  public var changes: AsyncStream<[String]> {
    // Each setting with the keys a `reloaded` event names when it changes (its own, its old ones, and
    // for a struct its fields', a leaf key under it), and its value as this subscription last saw it:
    // an event names keys whose value or origin changed, the stream only settings whose value did.
    let settings = allSettings.map { record in (record.box, [record.key] + record.aliases) }
    let seen = Locked(settings.map { $0.0.currentValue().value })
    return store.eventHub.subscribe(owner: ObjectIdentifier(self)) { event -> [String]? in
      guard case .reloaded(_, let changedKeys, _) = event else { return nil }
      let named = Set(changedKeys)
      func touched(_ name: String) -> Bool {
        named.contains(name)
          || changedKeys.contains {
            $0.hasPrefix(name) && $0.utf8.dropFirst(name.utf8.count).first == UInt8(ascii: ".")
          }
      }
      let changed = seen.withLock { seen in
        settings.indices.compactMap { index -> String? in
          let (box, names) = settings[index]
          guard names.contains(where: touched) else { return nil }
          let now = box.currentValue().value
          guard now != seen[index] else { return nil }
          seen[index] = now
          return box.key
        }
      }
      return changed.isEmpty ? nil : changed
    }
  }

  /// The settings that have all of `traits`.
  public func settings(withTraits traits: SettingTraits) -> [AnySettingRecord] {
    allSettings.filter { $0.traits.isSuperset(of: traits) }
  }

  /// The settings that have none of `traits`.
  public func settings(excludingTraits traits: SettingTraits) -> [AnySettingRecord] {
    allSettings.filter { $0.traits.isDisjoint(with: traits) }
  }

  /// Runs `body` with every read of this store's settings pinned to one generation, so that several
  /// settings read together are consistent: `server.withConsistentSnapshot { ($0.host, $0.port) }`.
  public func withConsistentSnapshot<T>(_ body: (Self) throws -> T) rethrows -> T {
    let store = self.store
    store.pinCount.add(1, ordering: .relaxed)
    defer { store.pinCount.subtract(1, ordering: .relaxed) }
    var pins = SettingsStore.pinned
    if pins[ObjectIdentifier(store)] == nil { pins[ObjectIdentifier(store)] = store.snapshot }
    let group = unsafeDowncast(self, to: Self.self)
    return try SettingsStore.$pinned.withValue(pins) { try body(group) }
  }
}

/// How property names become keys.
public enum KeyStyle: Sendable {
  /// `maxConnections` stays `maxConnections`.
  case asDeclared
  /// `maxConnections` becomes `max_connections`.
  case snakeCase
  /// `maxConnections` becomes `max-connections`.
  case kebabCase

  /// The key for a property name.
  public func key(for name: String) -> String {
    switch self {
    case .asDeclared: name
    case .snakeCase: EnvironmentNames.screamingSnake(name).lowercased()
    case .kebabCase:
      EnvironmentNames.screamingSnake(name).lowercased().split(separator: "_").joined(separator: "-")
    }
  }
}

/// `ServerSettings` → `server`; `HTTPServerSettings` → `httpServer`; `TLS` → `tls`.
func defaultSection(for className: String) -> String {
  var name = className
  if let dot = name.lastIndex(of: ".") { name = String(name[name.index(after: dot)...]) }
  if name.hasSuffix("Settings") && name.count > "Settings".count { name.removeLast("Settings".count) }
  // Lower-case the leading capitals, keeping the last one of an acronym that starts a word (HTTPServer).
  let characters = Array(name)
  var leading = 0
  while leading < characters.count && characters[leading].isUppercase { leading += 1 }
  if leading > 1 && leading < characters.count { leading -= 1 }
  return characters[..<leading].map { $0.lowercased() }.joined() + String(characters[leading...])
}
