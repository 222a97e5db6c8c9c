/// A key for a user-defined attribute, in the pattern of SwiftUI's `EnvironmentKey`.
///
/// <!-- snippet: Tests/DocSnippets/DeclarationsSnippets.swift#attribute-key -->
/// ```swift
/// struct UISection: SettingAttributeKey { static let defaultValue: String? = nil }
/// extension SettingAttributes {
///   var uiSection: String? {
///     get { self[UISection.self] }
///     set { self[UISection.self] = newValue }
///   }
/// }
/// ```
///
/// A declaration sets the attribute:
///
/// <!-- snippet: Tests/DocSnippets/DeclarationsSnippets.swift#attribute-use -->
/// ```swift
/// @Setting(.attribute(\.uiSection, "Network")) var port = 8080
/// ```
///
/// and the setting's record reads it:
///
/// <!-- snippet: Tests/DocSnippets/DeclarationsSnippets.swift#attribute-read -->
/// ```swift
/// print(server.$port.uiSection ?? "")  // "Network"
/// print(server.$port.help ?? "")  // the `help:` text
/// ```
public protocol SettingAttributeKey {
  /// The attribute's type.
  associatedtype Value: Sendable
  /// The value when the declaration does not set one.
  static var defaultValue: Value { get }
}

/// The attributes of a setting: built-in ones (`help`, `validationSummary`) and any user-defined
/// ``SettingAttributeKey``.
public struct SettingAttributes: Sendable {
  private var storage: [ObjectIdentifier: any Sendable] = [:]

  /// Whether no attribute is set.
  var isEmpty: Bool { storage.isEmpty }

  /// No attributes set.
  public init() {}

  /// The value for a key, or the key's default.
  public subscript<Key: SettingAttributeKey>(key: Key.Type) -> Key.Value {
    get { storage[ObjectIdentifier(key)] as? Key.Value ?? Key.defaultValue }
    set { storage[ObjectIdentifier(key)] = newValue }
  }

  /// These attributes, with every attribute set in `other` taking `other`'s value.
  func merging(_ other: SettingAttributes) -> SettingAttributes {
    var merged = self
    merged.storage.merge(other.storage) { _, new in new }
    return merged
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
  public var help: String? {
    get { self[HelpKey.self] }
    set { self[HelpKey.self] = newValue }
  }

  /// What the setting's validation accepts, in words (`must be in 1...65535`).
  public var validationSummary: String? {
    get { self[ValidationSummaryKey.self] }
    set { self[ValidationSummaryKey.self] = newValue }
  }

  /// The bounds of a numeric `.range` validation, `[minimum, maximum]`.
  var validationBounds: [SettingValue]? {
    get { self[ValidationBoundsKey.self] }
    set { self[ValidationBoundsKey.self] = newValue }
  }
}

/// One attribute set on a declaration: `@Setting(.attribute(\.uiSection, "Network")) var port = 8080`.
public struct SettingAttribute: Sendable {
  let attributes: SettingAttributes

  /// Sets a user-defined attribute.
  public static func attribute<Value>(_ keyPath: WritableKeyPath<SettingAttributes, Value>, _ value: Value)
    -> SettingAttribute
  {
    var attributes = SettingAttributes()
    attributes[keyPath: keyPath] = value
    return SettingAttribute(attributes: attributes)
  }

  /// Sets the one-line help text.
  public static func help(_ text: String) -> SettingAttribute {
    .attribute(\.help, text)
  }
}

/// A check on a setting's value. A value that fails it is ignored like one that does not convert: the
/// next lower layer's value (then the default) is used, and a diagnostic says why.
public struct SettingValidation<Value>: Sendable {
  /// What the check accepts, in words (`must be in 1...65535`).
  public let summary: String
  let check: @Sendable (Value) -> Bool
  /// The bounds of a numeric range, for the JSON Schema's `minimum` and `maximum`.
  var bounds: (minimum: SettingValue, maximum: SettingValue)? {
    get { boundValues.count == 2 ? (boundValues[0], boundValues[1]) : nil }
    set { boundValues = newValue.map { [$0.minimum, $0.maximum] } ?? [] }
  }
  /// The bounds, in an array: every setting's box holds an optional validation, and two values inline
  /// would make each box 130 bytes larger.
  private var boundValues: [SettingValue] = []

  /// A check with a message: `SettingValidation("must be even") { $0 % 2 == 0 }`.
  public init(_ summary: String, _ check: @escaping @Sendable (Value) -> Bool) {
    self.summary = summary
    self.check = check
  }
}

extension SettingValidation where Value: Comparable & Sendable {
  /// The value must lie in `range`.
  public static func range(_ range: ClosedRange<Value>) -> SettingValidation {
    SettingValidation("must be in \(range.lowerBound)...\(range.upperBound)") { range.contains($0) }
  }
}

extension SettingValidation where Value: BinaryInteger & Sendable {
  /// The value must lie in `range`; the JSON Schema carries it as `minimum` and `maximum`.
  public static func range(_ range: ClosedRange<Value>) -> SettingValidation {
    var validation = SettingValidation("must be in \(range.lowerBound)...\(range.upperBound)") {
      range.contains($0)
    }
    validation.bounds = (Self.number(range.lowerBound), Self.number(range.upperBound))
    return validation
  }

  private static func number(_ value: Value) -> SettingValue {
    if let int = Int(exactly: value) { return SettingValue(.integer(int), origin: .codeDefault) }
    if let uint = UInt(exactly: value) { return SettingValue(.unsignedInteger(uint), origin: .codeDefault) }
    return SettingValue(.double(Double(value)), origin: .codeDefault)
  }
}

extension SettingValidation where Value: BinaryFloatingPoint & Sendable {
  /// The value must lie in `range`; the JSON Schema carries it as `minimum` and `maximum`.
  public static func range(_ range: ClosedRange<Value>) -> SettingValidation {
    var validation = SettingValidation("must be in \(range.lowerBound)...\(range.upperBound)") {
      range.contains($0)
    }
    validation.bounds = (
      SettingValue(.double(Double(range.lowerBound)), origin: .codeDefault),
      SettingValue(.double(Double(range.upperBound)), origin: .codeDefault)
    )
    return validation
  }
}
