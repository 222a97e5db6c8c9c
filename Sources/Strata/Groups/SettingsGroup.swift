import Synchronization

/// A group of typed settings: a struct of ``Setting`` properties.
///
/// <!-- snippet: Tests/DocSnippets/GroupSymbolSnippets.swift#SettingsGroup -->
/// ```swift
/// struct ServerSettings: SettingsGroup {  // section "server"
///   @Setting var host = "127.0.0.1"
///   @Setting(traits: .restartRequired) var port = 8080
///   let limits = LimitSettings()  // a nested group: section "server.limits"
/// }
/// let server = ServerSettings(store: store)
/// print(server.port)  // typed, cached, safe from any thread
/// print(server.$port.origin)  // where the value came from
/// ```
///
/// The compiler checks the group's `Sendable` conformance: its settings are references to state that
/// the store keeps behind locks, and a copy of the group reads the same settings.
///
/// The section is the type name minus a `Settings` suffix, lower-camel-cased; declare a static
/// ``section`` to choose another. ``init(store:section:)`` makes the group and binds its settings,
/// found by the type's `init()`: each setting it makes, in declaration order, with the names of its
/// stored properties (read once per type). The group's settings stay declared on the store while any
/// copy of the group lives. `withObservationTracking` and `Observations` see changes of exactly the
/// settings they read.
public protocol SettingsGroup: Sendable {
  /// Makes the group with its declared defaults, not bound to a store: use ``init(store:section:)``.
  /// A struct whose stored properties all have initial values has it without writing it.
  init()

  /// The section this group's keys live under, such as `server`. Declare it to choose another: it is
  /// a key (see ``SettingKey``), so `"app.server"` nests and `#""app.server""#` is one name.
  static var section: String { get }

  /// How property names become keys (default: as declared).
  static var keyStyle: SettingKey.Style { get }

  /// Rules across the group's settings, each with what it asks in words (default: none):
  ///
  /// <!-- snippet: Tests/DocSnippets/GroupSymbolSnippets.swift#Rules -->
  /// ```swift
  /// struct PoolSettings: SettingsGroup {
  ///   @Setting var minConnections = 1
  ///   @Setting var maxConnections = 10
  ///   static var rules: [SettingValidation<Self>] {
  ///     [SettingValidation("minConnections <= maxConnections") { $0.minConnections <= $0.maxConnections }]
  ///   }
  /// }
  /// ```
  ///
  /// A generation whose values break one is not taken by the group: every setting of the group keeps
  /// its running value (as one bad value keeps its own), a `failed` event names the rule and each value
  /// it read with its origin, and a `recovered` event follows the edit that fixes it. A group made
  /// breaking one is reported by ``SettingsStore/requireAll()`` and ``SettingsStore/diagnostics``. A
  /// rule runs on a copy of the group that reads the new values: it must only read the group.
  static var rules: [SettingValidation<Self>] { get }

  /// Sets of settings that change together, such as a certificate and its key (default: none):
  ///
  /// <!-- snippet: Tests/DocSnippets/GroupSymbolSnippets.swift#Linked -->
  /// ```swift
  /// struct TLSFiles: SettingsGroup {
  ///   @Setting var certificate = ""
  ///   @Setting var privateKey = ""
  ///   static var linked: [[PartialKeyPath<Self>]] { [[\.certificate, \.privateKey]] }
  /// }
  /// ```
  ///
  /// A generation that changes some settings of a set but not all keeps the changed ones at their
  /// running values until the others change too, then publishes the whole set at once: no generation
  /// pairs a new certificate with the old key. When the others have not changed 5 seconds after the
  /// first, what changed is published alone, with a warning.
  static var linked: [[PartialKeyPath<Self>]] { get }
}

extension SettingsGroup {
  /// The type name minus a `Settings` suffix, lower-camel-cased: `HTTPServerSettings` → `httpServer`.
  public static var section: String { defaultSection(for: String(describing: Self.self)) }

  /// As declared: `maxConnections` stays `maxConnections`.
  public static var keyStyle: SettingKey.Style { .asDeclared }

  /// None.
  public static var rules: [SettingValidation<Self>] { [] }

  /// None.
  public static var linked: [[PartialKeyPath<Self>]] { [] }

  /// Makes the group and binds it to a store.
  ///
  /// Keep the group for as long as the program reads it: its settings are declared on the store while
  /// it (or a copy) lives. A group released before ``SettingsStore/requireAll()`` (`_ =
  /// DatabaseSettings(store: store)`) is named by a warning in the store's diagnostics, and
  /// `requireAll()` still checks that its required keys are set.
  /// - Parameters:
  ///   - store: the store; by default ``SettingsStore/current``, else a new in-memory store that holds
  ///     only the defaults. A group on that private store reads its defaults whatever the files say:
  ///     that store's diagnostics say so, and a debug build says so on standard error at the first
  ///     read, once per type.
  ///   - section: the section of this instance (a key, such as `tenants.acme`) instead of the type's
  ///     ``section``, so that one type serves sets of groups made at run time:
  ///     `TenantSettings(store: store, section: "tenants.\(name)")`.
  public init(store: SettingsStore? = nil, section: String? = nil) {
    let typeName = String(describing: Self.self)
    let store = store ?? SettingsStore.current ?? FallbackStore.make(for: typeName)
    let frame = GroupFrame()
    self = GroupFrame.$current.withValue(frame) { Self() }
    let section = section ?? Self.section
    let members = GroupLayout.members(of: self, made: frame.boxes)
    frame.lifetime.bind(store: store, typeName: typeName, section: section, members: members)
    let judged = !GroupRules.isProbing && GroupLayout.declaresRules(self)
    let linksSettings = !GroupRules.isProbing && GroupLayout.declaresLinks(self)
    if !GroupRules.isProbing, store.fallbackGroup == nil, judged || linksSettings {
      let links =
        linksSettings ? GroupRules.$isProbing.withValue(true) { Self.linkedKeys(section: section) } : []
      let boxes = members.map(\.box)
      store.registerRules(
        GroupRules(typeName: typeName, boxes: boxes, links: links) { snapshot in
          guard judged else { return nil }
          return GroupRules.$isProbing.withValue(true) {
            Self.brokenRules(in: snapshot, section: section, typeName: typeName, running: boxes)
          }
        }, owner: ObjectIdentifier(frame.lifetime))
    }
  }

  /// A group over an in-memory store holding `values` (a table whose keys include this group's section):
  /// `Self(store: .inMemory(values))`, which programs write.
  static func inMemory(_ values: SettingValue = .emptyTable(origin: .runtime)) -> Self {
    Self(store: .inMemory(values))
  }

  /// Every setting of this group and its nested groups, as type-erased records.
  public var allSettings: [AnySettingRecord] {
    GroupLayout.boxes(of: self).map { AnySettingRecord(box: $0.box) }
  }

  /// The lifetime the group's settings share (`nil` for a group made by `init()` alone, or one without
  /// settings).
  var lifetime: GroupLifetime? { GroupLayout.lifetime(of: self) }

  /// The store the group is bound to (a group made by ``init(store:section:)``, with settings).
  var store: SettingsStore {
    guard let store = lifetime?.store else {
      preconditionFailure("\(Self.self) has no setting bound to a store: make it with init(store:)")
    }
    return store
  }

  /// The section the group was made with (a nested group's is its parent's).
  var sectionPath: String { lifetime?.section ?? Self.section }

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
    guard let lifetime, let store = lifetime.store else { return AsyncStream { $0.finish() } }
    let settings = allSettings.map { record in (record.box, [record.key] + record.aliases) }
    let seen = Locked(settings.map { $0.0.currentValue().value })
    return store.eventHub.subscribe(owner: ObjectIdentifier(lifetime)) { event -> [String]? in
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

  /// Runs `body` with every read of this store's settings pinned to one generation, so that several
  /// settings read together are consistent: `server.withConsistentSnapshot { ($0.host, $0.port) }`.
  public func withConsistentSnapshot<T>(_ body: (Self) throws -> T) rethrows -> T {
    guard let store = lifetime?.store else { return try body(self) }
    store.pinCount.add(1, ordering: .relaxed)
    defer { store.pinCount.subtract(1, ordering: .relaxed) }
    var pins = SettingsStore.pinned
    if pins[ObjectIdentifier(store)] == nil { pins[ObjectIdentifier(store)] = store.snapshot }
    return try SettingsStore.$pinned.withValue(pins) { try body(self) }
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
