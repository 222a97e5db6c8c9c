/// A key for one of a setting's declared attributes, in the pattern of SwiftUI's `EnvironmentKey`:
/// help, the validation's summary and bounds.
protocol SettingAttributeKey {
  /// The attribute's type.
  associatedtype Value: Sendable
  /// The value when the declaration does not set one.
  static var defaultValue: Value { get }
}

/// The attributes a declaration sets on its setting (`help`, the validation's summary and bounds).
struct SettingAttributes: Sendable {
  private var storage: [ObjectIdentifier: any Sendable] = [:]

  /// Whether no attribute is set.
  var isEmpty: Bool { storage.isEmpty }

  /// No attributes set.
  init() {}

  /// The value for a key, or the key's default.
  subscript<Key: SettingAttributeKey>(key: Key.Type) -> Key.Value {
    get { storage[ObjectIdentifier(key)] as? Key.Value ?? Key.defaultValue }
    set { storage[ObjectIdentifier(key)] = newValue }
  }
}

private enum HelpKey: SettingAttributeKey {
  static let defaultValue: String? = nil
}

private enum ValidationSummaryKey: SettingAttributeKey {
  static let defaultValue: String? = nil
}

private enum ValidationBoundsKey: SettingAttributeKey {
  static let defaultValue: [SettingValue]? = nil
}

extension SettingAttributes {
  /// A one-line description of the setting, shown in schemas and `--help`-like listings.
  var help: String? {
    get { self[HelpKey.self] }
    set { self[HelpKey.self] = newValue }
  }

  /// What the setting's validation accepts, in words (`must be in 1...65535`).
  var validationSummary: String? {
    get { self[ValidationSummaryKey.self] }
    set { self[ValidationSummaryKey.self] = newValue }
  }

  /// The bounds of a numeric `.range` validation, `[minimum, maximum]`.
  var validationBounds: [SettingValue]? {
    get { self[ValidationBoundsKey.self] }
    set { self[ValidationBoundsKey.self] = newValue }
  }
}
