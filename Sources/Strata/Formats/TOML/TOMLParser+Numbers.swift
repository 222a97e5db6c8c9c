extension TOMLParser {
  /// An integer or a float at `pos`: decimal with an optional sign, `0x`/`0o`/`0b` integers, `inf`,
  /// `nan`; underscores only between digits. Integers must fit in 64 bits.
  mutating func parseNumber() throws(StrataError) -> SettingValue.Kind {
    let start = pos
    let startColumn = column
    var text = ""
    if bytes[pos] == UInt8(ascii: "+") || bytes[pos] == UInt8(ascii: "-") {
      if bytes[pos] == UInt8(ascii: "-") { text = "-" }
      pos += 1
    }
    if matches("inf") || matches("nan") {
      let isNaN = bytes[pos] == UInt8(ascii: "n")
      pos += 3
      return .double(
        isNaN ? (text == "-" ? -Double.nan : Double.nan) : (text == "-" ? -.infinity : .infinity))
    }
    if pos + 1 < bytes.count, bytes[pos] == UInt8(ascii: "0"),
      let radix = Self.radix(bytes[pos + 1])
    {
      guard pos == start else {
        throw error(
          .invalidNumber, "a hexadecimal, octal or binary integer takes no sign; remove the sign",
          column: startColumn)
      }
      pos += 2
      return .integer(try parseRadixInteger(radix, startColumn: startColumn))
    }
    guard pos < bytes.count, Self.isDigit(bytes[pos]) else { throw invalidValue() }
    if bytes[pos] == UInt8(ascii: "0"), pos + 1 < bytes.count,
      Self.isDigit(bytes[pos + 1]) || bytes[pos + 1] == UInt8(ascii: "_")
    {
      throw error(
        .invalidNumber,
        "a decimal number cannot start with a zero; remove the leading zeros (or write 0o for octal)",
        column: startColumn)
    }
    try readDigits(into: &text, startColumn: startColumn)
    var isFloat = false
    if pos < bytes.count, bytes[pos] == UInt8(ascii: ".") {
      isFloat = true
      text.append(".")
      pos += 1
      guard pos < bytes.count, Self.isDigit(bytes[pos]) else {
        throw error(
          .invalidNumber, "a float needs digits after its '.' (write 1.0, not 1.)", column: startColumn)
      }
      try readDigits(into: &text, startColumn: startColumn)
    }
    if pos < bytes.count, bytes[pos] == UInt8(ascii: "e") || bytes[pos] == UInt8(ascii: "E") {
      isFloat = true
      text.append("e")
      pos += 1
      if pos < bytes.count, bytes[pos] == UInt8(ascii: "+") || bytes[pos] == UInt8(ascii: "-") {
        text.append(Character(Unicode.Scalar(bytes[pos])))
        pos += 1
      }
      guard pos < bytes.count, Self.isDigit(bytes[pos]) else {
        throw error(.invalidNumber, "a float's exponent needs digits (write 1e6)", column: startColumn)
      }
      try readDigits(into: &text, startColumn: startColumn)
    }
    if isFloat {
      guard let double = Double(text) else {
        throw error(.invalidNumber, "invalid float", column: startColumn)
      }
      return .double(double)
    }
    guard let integer = Int(text) else {
      throw error(
        .invalidNumber,
        "the integer does not fit in 64 bits (-9223372036854775808 to 9223372036854775807); write it as a "
          + "string or a float", column: startColumn)
    }
    return .integer(integer)
  }

  /// Decimal digits with single underscores between them, appended to `text` without the underscores.
  private mutating func readDigits(into text: inout String, startColumn: Int) throws(StrataError) {
    var previousWasDigit = false
    while pos < bytes.count {
      let byte = bytes[pos]
      if Self.isDigit(byte) {
        text.append(Character(Unicode.Scalar(byte)))
        previousWasDigit = true
      } else if byte == UInt8(ascii: "_") {
        guard previousWasDigit, pos + 1 < bytes.count, Self.isDigit(bytes[pos + 1]) else {
          throw underscoreError(startColumn)
        }
        previousWasDigit = false
      } else {
        break
      }
      pos += 1
    }
  }

  /// The digits of a `0x`, `0o` or `0b` integer, after its prefix.
  private mutating func parseRadixInteger(_ radix: Int, startColumn: Int) throws(StrataError) -> Int {
    var value = 0
    var digits = 0
    var previousWasDigit = false
    while pos < bytes.count {
      let byte = bytes[pos]
      if let digit = Self.hexDigit(byte), Int(digit) < radix {
        let (shifted, overflow) = value.multipliedReportingOverflow(by: radix)
        let (sum, overflowAdding) = shifted.addingReportingOverflow(Int(digit))
        if overflow || overflowAdding {
          throw error(
            .invalidNumber,
            "the integer does not fit in 64 bits (up to 0x7FFFFFFFFFFFFFFF); write it as a string",
            column: startColumn)
        }
        value = sum
        digits += 1
        previousWasDigit = true
      } else if byte == UInt8(ascii: "_") {
        guard previousWasDigit, pos + 1 < bytes.count,
          Self.hexDigit(bytes[pos + 1]).map({ Int($0) < radix }) == true
        else { throw underscoreError(startColumn) }
        previousWasDigit = false
      } else {
        break
      }
      pos += 1
    }
    guard digits > 0 else {
      throw error(.invalidNumber, "the integer has no digits after its prefix", column: startColumn)
    }
    return value
  }

  private func underscoreError(_ startColumn: Int) -> StrataError {
    error(
      .invalidNumber, "an underscore in a number must stand between two digits (1_000)", column: startColumn)
  }

  private static func radix(_ byte: UInt8) -> Int? {
    switch byte {
    case UInt8(ascii: "x"): 16
    case UInt8(ascii: "o"): 8
    case UInt8(ascii: "b"): 2
    default: nil
    }
  }

  static func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }
}
