/// What the store and introspection need of a setting, whatever its type.
protocol AnySettingBox: AnyObject, Sendable {
  /// The full dotted key (`server.port`), empty until bound.
  var key: String { get }
  /// The property's name in its group.
  var propertyName: String { get }
  /// The traits.
  var traits: SettingTraits { get }
  /// The attributes.
  var attributes: SettingAttributes { get }
  /// The declared type's name (`Int`, `[String]`, `Duration`).
  var typeName: String { get }
  /// The raw values a `CaseIterable` enum setting accepts, or `nil`.
  var allowedValues: [String]? { get }
  /// Whether the setting is a `Bool` (or `Bool?`): a flag on a command line.
  var isFlag: Bool { get }
  /// Whether the setting is a list (an array or set, or an optional one): repeated on a command line,
  /// its option makes a list.
  var isList: Bool { get }
  /// The default, as a tree (nil when it cannot be encoded, or is nil).
  var defaultSettingValue: SettingValue? { get }
  /// A struct setting's fields, learnt from its default (`nil` for any other setting).
  var fieldShape: FieldShape? { get }
  /// Where the value came from, in words, naming the places of a struct's fields.
  func originDescription() -> String
  /// For a struct whose fields the layers set, the origin of each field they set, by full key; empty
  /// for any other value.
  func fieldOrigins() -> [String: Origin]
  /// Resolves the value for a new snapshot, updates the cache, and tells streams and observers when the
  /// typed value changed. Returns what it found, or `nil` when the setting has seen this generation or
  /// a newer one (then it changes nothing). Called by the store's reload loop only, one generation at a
  /// time, so streams and observers hear values in generation order.
  func apply(_ snapshot: Snapshot) -> SettingApplication?
  /// The current value as text (redacted for secrets) and its origin.
  func currentText() -> (text: String, origin: Origin)
  /// The key given in the declaration (`@Setting(key: "max_connections")`), if any.
  var declaredKey: String? { get }
  /// The old keys given in the declaration (`@Setting(aliases: ["maxConn"])`), in the group's section.
  var declaredAliases: [String] { get }
  /// The old keys, in full (`server.maxConn`), once bound.
  var aliases: [String] { get }
  /// Whether the setting was declared without a default, so that some layer must set it.
  var isRequired: Bool { get }
  /// Whether the setting has no value now: it is required and no layer sets a usable one.
  var isMissing: Bool { get }
  /// Whether one of the setting's old keys is among `keys` (a renamed setting reads them too).
  func readsAlias(in keys: Set<String>) -> Bool
  /// Checks a value given as a tree as a write through the setting's record would (read-only,
  /// conversion to the declared type, validation) and returns it as the setting encodes it.
  func checkedWrite(_ value: SettingValue) throws(StrataError) -> SettingValue?
  /// The running value as a tree, and its origin (`nil` for a required setting without a value).
  func currentValue() -> (value: SettingValue?, origin: Origin)
  /// Whether the program has read the setting since it was declared (not the store's or tools' looks).
  var wasReadByProgram: Bool { get }
  /// Forgets the program's reads (a probe group's setting, before each of its group's rules runs).
  func forgetReads()
  /// The value a snapshot would give the setting, as a tree, with its origin and why the snapshot's
  /// top value was rejected (if it was), without applying anything: what a plan compares with
  /// ``currentValue()``.
  func resolvedWithoutApplying(in snapshot: Snapshot) -> (
    value: SettingValue?, origin: Origin, rejection: StrataError?
  )
  /// The rejected edit standing now (the top value that does not convert or validate), and whether
  /// the setting keeps its running value over it (a live edit) rather than a lower layer's (start-up).
  func standingRejection() -> (error: StrataError, keptRunningValue: Bool)?
  /// Binds the setting to a store, its full key and its old keys.
  func bind(store: SettingsStore, key: String, aliases: [String], propertyName: String)
  /// Ends every stream.
  func finish()
}

/// What applying a snapshot to a setting found.
struct SettingApplication {
  /// The problems found resolving the setting's value.
  var diagnostics: [Diagnostic]
  /// Whether the setting kept its running value whatever the layers now say: a rejected edit, or a
  /// restart-required setting fixed at its first value.
  var keptRunningValue = false
}
