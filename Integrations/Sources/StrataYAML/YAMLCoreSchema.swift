/// YAML 1.2's core schema (<https://yaml.org/spec/1.2.2/#1032-tag-resolution>): what a plain scalar is,
/// and what the core tags (`!!str`, `!!int`, `!!float`, `!!bool`, `!!null`) make of a scalar's text.
///
/// A plain `yes`, `no`, `on`, `off`, `y` or `n` is a string here (YAML 1.1 made them booleans; a setting
/// declared `Bool` still reads them, as it reads them from INI files); `0o17` is octal and `017` decimal;
/// `1_000`, `0b101`, `1:20` and `2001-12-14` are strings.
enum YAMLCoreSchema {
  /// A scalar's meaning.
  enum Scalar: Equatable {
    case null
    case bool(Bool)
    case integer(Int)
    /// An integer above `Int.max`, up to `UInt.max`.
    case unsignedInteger(UInt)
    case double(Double)
    case string
    /// An integer outside 64 bits.
    case integerOutOfRange
  }

  /// What a plain (unquoted, untagged) scalar means.
  static func resolvePlain(_ text: String) -> Scalar {
    switch text {
    case "", "~", "null", "Null", "NULL": return .null
    case "true", "True", "TRUE": return .bool(true)
    case "false", "False", "FALSE": return .bool(false)
    default: break
    }
    if let integer = integer(text) { return integer }
    if let double = double(text) { return .double(double) }
    return .string
  }

  /// The integer a scalar's text spells (`[-+]?[0-9]+`, `0o[0-7]+`, `0x[0-9a-fA-F]+`), or `nil`.
  static func integer(_ text: String) -> Scalar? {
    let utf8 = Array(text.utf8)
    guard let first = utf8.first else { return nil }
    if utf8.count > 2, first == UInt8(ascii: "0"),
      utf8[1] == UInt8(ascii: "o") || utf8[1] == UInt8(ascii: "x")
    {
      let radix = utf8[1] == UInt8(ascii: "o") ? 8 : 16
      let digits = utf8[2...]
      guard digits.allSatisfy({ isDigit($0, radix: radix) }) else { return nil }
      return number(String(decoding: digits, as: UTF8.self), radix: radix, negative: false)
    }
    let signed = first == UInt8(ascii: "-") || first == UInt8(ascii: "+")
    let digits = utf8[(signed ? 1 : 0)...]
    guard !digits.isEmpty, digits.allSatisfy({ isDigit($0, radix: 10) }) else { return nil }
    return number(String(decoding: digits, as: UTF8.self), radix: 10, negative: first == UInt8(ascii: "-"))
  }

  private static func number(_ digits: String, radix: Int, negative: Bool) -> Scalar {
    if negative {
      if let value = Int("-" + digits, radix: radix) { return .integer(value) }
      return .integerOutOfRange
    }
    if let value = Int(digits, radix: radix) { return .integer(value) }
    if let value = UInt(digits, radix: radix) { return .unsignedInteger(value) }
    return .integerOutOfRange
  }

  private static func isDigit(_ byte: UInt8, radix: Int) -> Bool {
    switch radix {
    case 8: return byte >= 0x30 && byte <= 0x37
    case 10: return byte >= 0x30 && byte <= 0x39
    default:
      return (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x46)
        || (byte >= 0x61 && byte <= 0x66)
    }
  }

  /// The number a float's text spells (`[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?`,
  /// `[-+]?\.inf`, `.nan`, in the three spellings of each), or `nil`.
  static func double(_ text: String) -> Double? {
    switch text {
    case ".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF": return .infinity
    case "-.inf", "-.Inf", "-.INF": return -.infinity
    case ".nan", ".NaN", ".NAN": return .nan
    default: break
    }
    var utf8 = Array(text.utf8)[...]
    if let sign = utf8.first, sign == UInt8(ascii: "-") || sign == UInt8(ascii: "+") {
      utf8 = utf8.dropFirst()
    }
    let whole = utf8.prefix { isDigit($0, radix: 10) }
    utf8 = utf8.dropFirst(whole.count)
    var fraction: ArraySlice<UInt8> = []
    if utf8.first == UInt8(ascii: ".") {
      utf8 = utf8.dropFirst()
      fraction = utf8.prefix { isDigit($0, radix: 10) }
      utf8 = utf8.dropFirst(fraction.count)
    }
    guard !whole.isEmpty || !fraction.isEmpty else { return nil }
    if let marker = utf8.first, marker == UInt8(ascii: "e") || marker == UInt8(ascii: "E") {
      utf8 = utf8.dropFirst()
      if let sign = utf8.first, sign == UInt8(ascii: "-") || sign == UInt8(ascii: "+") {
        utf8 = utf8.dropFirst()
      }
      let exponent = utf8.prefix { isDigit($0, radix: 10) }
      guard !exponent.isEmpty else { return nil }
      utf8 = utf8.dropFirst(exponent.count)
    }
    guard utf8.isEmpty else { return nil }
    // The grammar allows `1.` and `.5`; strtod-style parsing does too.
    return Double(text.hasSuffix(".") ? text + "0" : text)
  }
}
