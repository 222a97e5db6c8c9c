/// A check on a setting's value. A value that fails it is ignored like one that does not convert: the
/// next lower layer's value (then the default) is used, and a diagnostic says why.
public struct SettingValidation<Value>: Sendable {
  /// What the check accepts, in words (`must be in 1...65535`).
  let summary: String
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
