public import Observation
public import Synchronization

/// A typed setting, declared as a property of a ``SettingsGroup``.
///
/// <!-- snippet: Tests/DocSnippets/GroupSymbolSnippets.swift#Setting -->
/// ```swift
/// struct ServerSettings: SettingsGroup {
///   @Setting var host = "127.0.0.1"
///   @Setting(key: "max_connections", validation: .range(1...100_000)) var maxConnections = 1024
///   @Setting(traits: .secret, help: "Token for the admin API") var apiToken = ""
/// }
/// ```
///
/// Reading the property returns the value for the store's current generation, decoded once and cached.
/// A setting declared without a default (`@Setting var databaseURL: URL`) is required: see
/// ``SettingsStore/requireAll()``. The property is read-only: `$name` is the setting's ``SettingRecord``,
/// whose `save(_:)` writes it (`try await server.$port.save(9000)`).
@propertyWrapper
public struct Setting<Value: Sendable>: Sendable {
  @usableFromInline let box: SettingBox<Value>
  /// What the group's settings share, held so that it lives as long as any copy of the group; `nil`
  /// for a setting made outside ``SettingsGroup/init(store:section:)``.
  @usableFromInline let lifetime: GroupLifetime?

  /// Declares a setting of a `Codable` type (numbers, strings, Bool, Date, Data, URL, Duration, arrays,
  /// dictionaries, optionals, `Codable` structs).
  /// - Parameters:
  ///   - wrappedValue: the default, used when no layer sets a usable value.
  ///   - key: the key in its section (default: the property's name, in the group's key style); a dot
  ///     nests (`"tls.cert"`), a quoted name keeps its dot (`#""listen.owner""#`, see ``SettingKey``).
  ///   - aliases: old keys of the setting, in its section, read when the key is absent (with a warning
  ///     that the old name is deprecated).
  ///   - traits: ``SettingTraits`` such as `.secret`.
  ///   - help: a one-line description.
  ///   - validation: a check the value must pass.
  @_specialize(where Value == Int)
  @_specialize(where Value == String)
  @_specialize(where Value == Bool)
  @_specialize(where Value == Double)
  public init(
    wrappedValue: Value, key: String? = nil, aliases: [String] = [], traits: SettingTraits = [],
    help: String? = nil, validation: SettingValidation<Value>? = nil
  ) where Value: Codable {
    self.init(
      default: wrappedValue, key: key, aliases: aliases, traits: traits, help: help, validation: validation,
      coding: Self.codableCoding())
  }

  /// Declares a setting of a `Codable` type with no options and no default: `@Setting var url: URL`
  /// (required), `@Setting var replicaURL: URL?` (optional). Swift default-initializes a property
  /// wrapper through an initializer declared in the type itself, hence this one here (the others
  /// without a default are in `Setting+Required.swift`); a `RawRepresentable` type that is not
  /// `Codable` is declared with `@Setting()`.
  public init() where Value: Codable {
    self.init(key: nil)
  }

  /// Declares a setting of a `RawRepresentable` type, stored as its raw value.
  public init(
    wrappedValue: Value, key: String? = nil, aliases: [String] = [], traits: SettingTraits = [],
    help: String? = nil, validation: SettingValidation<Value>? = nil
  ) where Value: RawRepresentable, Value.RawValue: Codable {
    self.init(
      default: wrappedValue, key: key, aliases: aliases, traits: traits, help: help, validation: validation,
      coding: Self.rawValueCoding())
  }

  /// Declares a setting of a `RawRepresentable` type that is also `Codable`: stored as its raw value.
  public init(
    wrappedValue: Value, key: String? = nil, aliases: [String] = [], traits: SettingTraits = [],
    help: String? = nil, validation: SettingValidation<Value>? = nil
  ) where Value: RawRepresentable & Codable, Value.RawValue: Codable {
    self.init(
      default: wrappedValue, key: key, aliases: aliases, traits: traits, help: help, validation: validation,
      coding: Self.rawValueCoding())
  }

  /// The one place a declaration becomes a box; `default` is `nil` for a required setting.
  init(
    default defaultValue: Value?, key: String?, aliases: [String], traits: SettingTraits, help: String?,
    validation: SettingValidation<Value>?, coding: SettingCoding<Value>
  ) {
    box = SettingBox(
      defaultValue: defaultValue, key: key, aliases: aliases, traits: traits,
      attributes: Self.attributes(help), validation: validation, coding: coding)
    if let frame = GroupFrame.current {
      frame.boxes.append(box)
      lifetime = frame.lifetime
    } else {
      lifetime = nil
    }
  }

  /// The coding through `Codable`, one per value type.
  static func codableCoding() -> SettingCoding<Value> where Value: Codable {
    SharedCodings.coding(.codable, for: Value.self) {
      SettingCoding(
        decode: Self.decodeCodable, encode: Self.encodeCodable,
        decodeOverDefault: Self.decodeCodableOverDefault)
    }
  }

  /// The coding through the raw value, one per value type.
  static func rawValueCoding() -> SettingCoding<Value>
  where Value: RawRepresentable, Value.RawValue: Codable {
    SharedCodings.coding(.rawValue, for: Value.self) {
      SettingCoding(decode: Self.decodeRaw, encode: Self.encodeRaw)
    }
  }

  @Sendable static func decodeCodable(_ value: SettingValue, _ key: String) throws(StrataError) -> Value
  where Value: Codable {
    try SettingDecoder().decode(Value.self, from: value, key: key)
  }

  @Sendable static func decodeCodableOverDefault(
    _ value: SettingValue, _ defaultTree: SettingValue, _ key: String
  ) throws(StrataError) -> Value where Value: Codable {
    try SettingDecoder().decode(Value.self, from: value, over: defaultTree, key: key)
  }

  @Sendable static func encodeCodable(_ value: Value) throws(StrataError) -> SettingValue?
  where Value: Codable {
    try SettingEncoder().encode(value)
  }

  @Sendable static func decodeRaw(_ value: SettingValue, _ key: String) throws(StrataError) -> Value
  where Value: RawRepresentable, Value.RawValue: Codable {
    let raw = try SettingDecoder().decode(Value.RawValue.self, from: value, key: key)
    guard let decoded = Value(rawValue: raw) ?? matchingCase(raw) else {
      // A `CaseIterable` enum names its cases; any other raw-value type cannot list what it accepts.
      let accepted =
        CodingSupport.caseNames(Value.self).map { " (one of: \($0.joined(separator: ", ")))" } ?? ""
      throw located(
        StrataError(
          .invalidValue,
          "\(value.description) is not a valid \(describeType(Value.self)) for \(key)\(accepted)"),
        value.origin)
    }
    return decoded
  }

  /// The one case whose text raw value equals `raw` but for letter case (`DEBUG` for a log level
  /// whose case is `debug`), for a `CaseIterable` type; `nil` when none or several do.
  static func matchingCase(_ raw: Value.RawValue) -> Value? where Value: RawRepresentable {
    guard let text = raw as? String, let iterable = Value.self as? any CaseIterable.Type else { return nil }
    let lowered = text.lowercased()
    let matches = CodingSupport.allCases(of: iterable).compactMap { $0 as? Value }.filter {
      ($0.rawValue as? String)?.lowercased() == lowered
    }
    return matches.count == 1 ? matches.first : nil
  }

  @Sendable static func encodeRaw(_ value: Value) throws(StrataError) -> SettingValue?
  where Value: RawRepresentable, Value.RawValue: Codable {
    try SettingEncoder().encode(value.rawValue)
  }

  private static func attributes(_ help: String?) -> SettingAttributes {
    var attributes = SettingAttributes()
    if let help { attributes.help = help }
    return attributes
  }

  /// The running value: `server.port`. There is no setter: a write names itself,
  /// `try await server.$port.save(9000)`.
  @inlinable
  public var wrappedValue: Value {
    // Nothing here changes a reference count that other readers share: the box and the group's
    // lifetime are borrowed from this setting, which the caller holds (unretained references, not
    // copies), and the registrar is told of the key path the box keeps, borrowed too.
    Unmanaged.passUnretained(box)._withUnsafeGuaranteedRef { box in
      if let lifetime = lifetime.map(Unmanaged.passUnretained) {
        lifetime._withUnsafeGuaranteedRef { lifetime in
          if let keyPath = box.observedKeyPath.load(ordering: .acquiring) {
            Unmanaged<KeyPath<GroupLifetime, ObjectIdentifier>>.fromOpaque(keyPath)._withUnsafeGuaranteedRef {
              lifetime.registrar.access(lifetime, keyPath: $0)
            }
          } else {
            Self.observe(box, in: lifetime)
          }
        }
      }
      return box.read()
    }
  }

  /// The setting's record: value, origin, shadowed values, streams, traits and help.
  public var projectedValue: SettingRecord<Value> { SettingRecord(box: box) }
}

extension Setting {
  /// Installs the box's Observation hook on its first typed read and tells the registrar of that read.
  ///
  /// Observation knows the setting by a key path of its own, `\GroupLifetime.[observedSetting: box]`,
  /// made here once, rather than the property's (which the compiler would hand every read, retained):
  /// the registrar only compares key paths, and this one is distinct for each setting of a group.
  @usableFromInline
  static func observe(_ box: SettingBox<Value>, in lifetime: GroupLifetime) {
    let keyPath = \GroupLifetime.[observedSetting: ObjectIdentifier(box)]
    let hook: @Sendable () -> Void = { [weak lifetime] in
      guard let lifetime else { return }
      lifetime.registrar.withMutation(of: lifetime, keyPath: keyPath) {}
    }
    box.installObserver(hook, keyPath: keyPath)
    lifetime.registrar.access(lifetime, keyPath: keyPath)
  }
}

/// What the group's Mirror walk looks for.
protocol SettingProperty {
  var anyBox: any AnySettingBox { get }
  var lifetime: GroupLifetime? { get }
}

extension Setting: SettingProperty {
  var anyBox: any AnySettingBox { box }
}
