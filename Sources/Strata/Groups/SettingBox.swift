public import Synchronization

/// The state of one declared setting: its declaration, its binding to a store and key, the value cached
/// for the current generation, and its subscribers.
///
/// A `Setting` (a struct stored in the group) holds one box; the store's registry holds it strongly too
/// (no weak reference, no side table on the read path), and the group's deinit unregisters it.
@usableFromInline
final class SettingBox<Value: Sendable>: AnySettingBox, @unchecked Sendable {
  // @unchecked: the `let`s are immutable; everything mutable is in `lockedState`, behind its lock.
  /// The default; `nil` for a required setting.
  @usableFromInline let defaultValue: Value?
  /// Whether the program has read the setting (a typed read, a record's value, a stream): set once,
  /// never cleared. Until it is set the lock-free cache stays empty, so that the first typed read
  /// takes the slow path, which sets it; from then on a cached read costs what it did. Declared here,
  /// it takes a byte of the default's padding (an `Int?` is 9 bytes): the box grows by nothing.
  @usableFromInline let programRead = Atomic<Bool>(false)
  @usableFromInline let traits: SettingTraits
  /// The declaration's key, old keys, attributes and validation, out of line: most settings declare
  /// none of them (`nil` then).
  private let declared: Declared?
  /// Whether the value is fixed once the program has read it (a bit of `traits`, not a field of its
  /// own: every box would carry it, padded to a word).
  @usableFromInline var isRestartRequired: Bool { traits.contains(.restartRequired) }
  /// How the type converts (shared by every setting of the type declared without a coding; one word).
  let coding: SettingCoding<Value>
  /// The mutable state and its mutex, in one allocation besides the box's (see ``Locked``). Touched
  /// only by ``withState(_:)`` and ``readState(_:)`` (Scripts/check-folder-order.py keeps it so).
  @usableFromInline let lockedState: Locked<State>
  /// The value for the current generation, for reads without the lock (plain-data types only); it
  /// mirrors the locked state and is written only with the lock held, by ``withState(_:)``.
  @usableFromInline let cache = ReadCache<Value>()
  /// The key path the Observation registrar is told of on every read, once the hook is installed
  /// (retained until the box's deinit): a typed read passes it unretained instead of the key path the
  /// compiler would materialize, and retain, on every read. `nil` until the first typed read.
  @usableFromInline let observedKeyPath = Atomic<UnsafeRawPointer?>(nil)

  /// What a declaration gives beyond its default, traits and coding.
  final class Declared: Sendable {
    let key: String?
    let aliases: [String]
    let attributes: SettingAttributes
    let validation: SettingValidation<Value>?

    init(
      key: String?, aliases: [String], attributes: SettingAttributes, validation: SettingValidation<Value>?
    ) {
      self.key = key
      self.aliases = aliases
      self.attributes = attributes
      self.validation = validation
    }
  }

  /// The key given in the declaration (`@Setting(key: "max_connections")`), if any.
  var declaredKey: String? { declared?.key }
  /// The old keys given in the declaration, in the group's section.
  var declaredAliases: [String] { declared?.aliases ?? [] }
  /// The attributes (help, validation summary and bounds, custom ones).
  var attributes: SettingAttributes { declared?.attributes ?? SettingAttributes() }
  /// The check the value must pass, if any.
  var validation: SettingValidation<Value>? { declared?.validation }

  init(
    defaultValue: Value?, key: String?, aliases: [String], traits: SettingTraits,
    attributes: SettingAttributes,
    validation: SettingValidation<Value>?, coding: SettingCoding<Value>
  ) {
    self.defaultValue = defaultValue
    self.traits = traits
    var attributes = attributes
    if let validation {
      attributes.validationSummary = validation.summary
      attributes.validationBounds = validation.bounds.map { [$0.minimum, $0.maximum] }
    }
    let declaresNothing = key == nil && aliases.isEmpty && attributes.isEmpty && validation == nil
    self.declared =
      declaresNothing
      ? nil : Declared(key: key, aliases: aliases, attributes: attributes, validation: validation)
    self.coding = coding
    self.lockedState = Locked(State(value: defaultValue))
  }

  var key: String { currentKey() }
  var propertyName: String { readState { $0.propertyName } }
  /// The old keys in full; a setting that declares none (almost every one) answers without the lock.
  var aliases: [String] { declaredAliases.isEmpty ? [] : readState { $0.aliases } }
  var isRequired: Bool { defaultValue == nil }
  var isMissing: Bool { isRequired && readIfPresent() == nil }
  var store: SettingsStore? { readState { _ in cache.boundStore } }
  var typeName: String { describeType(Value.self) }
  var allowedValues: [String]? { CodingSupport.caseNames(Value.self) }
  var isFlag: Bool { Value.self == Bool.self || Value.self == Bool?.self }
  var isList: Bool { Value.self is any ListSetting.Type }
  var defaultSettingValue: SettingValue? { defaultValue.flatMap { try? encode($0) } }
  var fieldShape: FieldShape? {
    // Only a `Codable` coding reads a table over its default; a custom coding's tree is its own.
    guard coding.decodeOverDefault != nil, !CodingSupport.isScalar(Value.self),
      let value = defaultValue as? any Encodable
    else { return nil }
    return SettingEncoder().fieldShape(of: value)
  }

  /// The value from a tree read at `key`. A table (or text holding a JSON object, as a variable gives
  /// it) is read over the default's tree: each field the layers do not set keeps the default's value
  /// (see "Structured values" in Declarations.md).
  func decode(_ value: SettingValue, _ key: String) throws(StrataError) -> Value {
    if value.isTable || Self.holdsJSONObject(value), let decodeOverDefault = coding.decodeOverDefault,
      let defaultValue,
      let defaultTree = try? coding.encode(defaultValue), defaultTree.isTable
    {
      return try decodeOverDefault(value, defaultTree, key)
    }
    return try coding.decode(value, key)
  }

  /// Whether `value` is text that holds a JSON object (a struct given in a variable or an option).
  private static func holdsJSONObject(_ value: SettingValue) -> Bool {
    guard case .string(let text) = value.kind else { return false }
    return DurationText.trimmed(text).hasPrefix("{")
  }

  /// The tree written for a value.
  func encode(_ value: Value) throws(StrataError) -> SettingValue? {
    try coding.encode(value)
  }

  /// The full key, under the lock (a function, so that common types have a specialized copy: generic
  /// code looks up the metadata of `State` and its lock at every call, a quarter of making 10,000
  /// settings).
  @_specialize(where Value == Int)
  @_specialize(where Value == String)
  @_specialize(where Value == Bool)
  @_specialize(where Value == Double)
  func currentKey() -> String { readState { $0.key } }

  deinit {
    if let keyPath = observedKeyPath.load(ordering: .acquiring) {
      Unmanaged<AnyKeyPath>.fromOpaque(keyPath).release()
    }
  }

  /// Binds the box to a store and key (at group init, or when a nested group is re-bound).
  @_specialize(where Value == Int)
  @_specialize(where Value == String)
  @_specialize(where Value == Bool)
  @_specialize(where Value == Double)
  func bind(store: SettingsStore, key: String, aliases: [String], propertyName: String) {
    withState { state in
      // Emptied first: a reader must never pair the old store's value with the new store.
      cache.publish(generation: ReadCache<Value>.emptyGeneration, value: nil)
      cache.bind(to: store)
      state.key = key
      state.aliases = aliases
      state.propertyName = propertyName
      state.generation = -1
      state.appliedGeneration = -1
    }
  }

  /// Stops the program: a required setting that has never had a value was read.
  @usableFromInline
  func missingValue() -> Never {
    preconditionFailure(
      "\(missingError()); call `try store.requireAll()` at start-up to report every missing setting before serving"
    )
  }

  func currentText() -> (text: String, origin: Origin) {
    let value = readIfPresent()
    let origin = readState { $0.origin }
    guard let value else { return (missingText, origin) }
    if traits.contains(.secret) { return (redactedText, origin) }
    let text = (try? encode(value)).flatMap { $0 }.map(ValueText.plain) ?? "nil"
    return (text, origin)
  }

  /// The origin of the current value.
  var origin: Origin {
    _ = readIfPresent()
    return readState { $0.origin }
  }

  func checkedWrite(_ value: SettingValue) throws(StrataError) -> SettingValue? {
    if traits.contains(.readOnly) { throw StrataError(.invalidValue, "\(key) is read-only") }
    let typed = try decode(value, key)
    if let validation, !validation.check(typed) {
      let shown = traits.contains(.secret) ? redactedText : "\(typed)"
      throw StrataError(.invalidValue, "invalid value \(shown) for \(key): \(validation.summary)")
    }
    return try encode(typed)
  }

  func currentValue() -> (value: SettingValue?, origin: Origin) {
    let value = readIfPresent().flatMap { try? encode($0) }
    return (value, readState { $0.origin })
  }
}

extension SettingBox: CustomReflectable {
  /// What `dump(group)` shows of a setting: its key, value as text (redacted for secrets), origin and
  /// traits, never the raw state.
  @usableFromInline var customMirror: Mirror {
    let (text, origin) = currentText()
    return Mirror(
      self, children: ["key": key, "value": text, "origin": origin, "traits": traits], displayStyle: .class)
  }
}
