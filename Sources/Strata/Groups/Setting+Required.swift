/// Settings declared without a default.
///
/// As with swift-argument-parser's `@Option var count: Int`, leaving out the default is how a
/// declaration says "this must be given": `@Setting var databaseURL: URL` is required, and
/// `@Setting var replicaURL: URL?` is optional (`nil` when no layer sets it). A required setting that no
/// layer supplies is an error in ``SettingsStore/diagnostics``; call ``SettingsStore/requireAll()`` at
/// start-up to stop with one error that lists every missing setting and where each can be set.
///
/// Reading a required setting that has never had a value stops the program with that message (a
/// precondition): call `requireAll()` first, or read it with `try group.$name.require()`. Once it has a
/// value, a live edit that removes it keeps the running value, like any edit that is rejected.
extension Setting {
  /// Declares a setting of a `Codable` type without a default: required, unless the type is optional
  /// (then `nil` when no layer sets it).
  /// - Parameters:
  ///   - key: the key in its section (default: the property's name, in the group's key style).
  ///   - aliases: old keys of the setting, in its section, read when the key is absent.
  ///   - traits: ``SettingTraits`` such as `.secret`.
  ///   - help: a one-line description.
  ///   - validation: a check the value must pass.
  public init(
    key: String? = nil, aliases: [String] = [], traits: SettingTraits = [], help: String? = nil,
    validation: SettingValidation<Value>? = nil
  ) where Value: Codable {
    self.init(
      default: Self.none, key: key, aliases: aliases, traits: traits, help: help, validation: validation,
      coding: Self.codableCoding())
  }

  /// Declares a required setting of a `RawRepresentable` type, stored as its raw value.
  public init(
    key: String? = nil, aliases: [String] = [], traits: SettingTraits = [], help: String? = nil,
    validation: SettingValidation<Value>? = nil
  ) where Value: RawRepresentable, Value.RawValue: Codable {
    self.init(
      default: nil, key: key, aliases: aliases, traits: traits, help: help, validation: validation,
      coding: Self.rawValueCoding())
  }

  /// Declares a required setting of a `RawRepresentable` type that is also `Codable`: stored as its raw
  /// value.
  public init(
    key: String? = nil, aliases: [String] = [], traits: SettingTraits = [], help: String? = nil,
    validation: SettingValidation<Value>? = nil
  ) where Value: RawRepresentable & Codable, Value.RawValue: Codable {
    self.init(
      default: nil, key: key, aliases: aliases, traits: traits, help: help, validation: validation,
      coding: Self.rawValueCoding())
  }

  /// `nil` as a value of an optional type (the default of an optional declared without one), else no
  /// default at all (a required setting).
  private static var none: Value? {
    (Value.self as? any ExpressibleByNilLiteral.Type).flatMap { $0.init(nilLiteral: ()) as? Value }
  }
}
