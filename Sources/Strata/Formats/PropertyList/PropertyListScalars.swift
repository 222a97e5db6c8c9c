import StrataPlatform

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// The elements of an XML property list.
enum PropertyListElement: Sendable {
  case plist, dict, array, key, string, integer, real, date, data, `true`, `false`

  /// Recognizes an element name given as bytes.
  init?(_ name: UnsafeBufferPointer<UInt8>) {
    // Called for every tag: compare raw bytes instead of going through generic collection code.
    func equals(_ s: StaticString) -> Bool { memcmp(name.baseAddress!, s.utf8Start, name.count) == 0 }
    switch name.count {
    case 3 where equals("key"): self = .key
    case 4 where equals("dict"): self = .dict
    case 4 where equals("real"): self = .real
    case 4 where equals("date"): self = .date
    case 4 where equals("data"): self = .data
    case 4 where equals("true"): self = .true
    case 5 where equals("plist"): self = .plist
    case 5 where equals("array"): self = .array
    case 5 where equals("false"): self = .false
    case 6 where equals("string"): self = .string
    case 7 where equals("integer"): self = .integer
    default: return nil
    }
  }

  /// The init given a byte range of a buffer.
  init?(_ range: Range<Int>, in bytes: UnsafeBufferPointer<UInt8>) {
    self.init(UnsafeBufferPointer(rebasing: bytes[range]))
  }

  /// The element's name, for messages.
  var name: String {
    switch self {
    case .plist: "plist"
    case .dict: "dict"
    case .array: "array"
    case .key: "key"
    case .string: "string"
    case .integer: "integer"
    case .real: "real"
    case .date: "date"
    case .data: "data"
    case .true: "true"
    case .false: "false"
    }
  }
}

/// Why a scalar's text was rejected, with the offset of the offending byte within the text.
struct ScalarError: Error {
  var code: StrataError.Code
  var message: String
  var offset: Int
}

/// The range of `text` without leading and trailing XML whitespace.
private func trimmed(_ text: UnsafeBufferPointer<UInt8>) -> Range<Int> {
  var lower = 0
  var upper = text.count
  while lower < upper, text[lower].isXMLSpace { lower += 1 }
  while upper > lower, text[upper - 1].isXMLSpace { upper -= 1 }
  return lower..<upper
}

/// Parses `<integer>` text: decimal or `0x` hexadecimal, optionally signed, from `Int.min` to
/// 2^64 − 1 (property lists hold unsigned 64-bit integers; those above `Int.max` are
/// ``SettingValue/Kind/unsignedInteger(_:)``).
func parseInteger(_ text: UnsafeBufferPointer<UInt8>) -> Result<SettingValue.Kind, ScalarError> {
  let range = trimmed(text)
  var i = range.lowerBound
  let negative = i < range.upperBound && text[i] == UInt8(ascii: "-")
  if i < range.upperBound, text[i] == UInt8(ascii: "-") || text[i] == UInt8(ascii: "+") { i += 1 }
  var radix: UInt64 = 10
  if i + 1 < range.upperBound, text[i] == UInt8(ascii: "0"), text[i + 1] | 0x20 == UInt8(ascii: "x") {
    radix = 16
    i += 2
  }
  guard i < range.upperBound else {
    return .failure(
      ScalarError(code: .invalidNumber, message: "<integer> has no digits", offset: range.lowerBound))
  }
  var magnitude: UInt64 = 0
  while i < range.upperBound {
    guard let digit = text[i].digitValue, UInt64(digit) < radix else {
      return .failure(ScalarError(code: .invalidNumber, message: "invalid digit in <integer>", offset: i))
    }
    let (times, overflow1) = magnitude.multipliedReportingOverflow(by: radix)
    let (plus, overflow2) = times.addingReportingOverflow(UInt64(digit))
    guard !overflow1, !overflow2 else { break }
    magnitude = plus
    i += 1
  }
  let limit = negative ? UInt64(Int64.max) + 1 : UInt64.max
  guard i == range.upperBound, magnitude <= limit else {
    return .failure(
      ScalarError(
        code: .invalidNumber, message: "<integer> out of the range -2^63…2^64−1", offset: range.lowerBound))
  }
  if negative { return .success(.integer(Int(bitPattern: UInt(0 &- magnitude)))) }
  return .success(magnitude > UInt64(Int.max) ? .unsignedInteger(UInt(magnitude)) : .integer(Int(magnitude)))
}

/// Parses `<real>` text, including the `nan`, `inf` and `-inf` that Python's plistlib writes.
func parseReal(_ text: UnsafeBufferPointer<UInt8>) -> Result<Double, ScalarError> {
  let range = trimmed(text)
  if let value = plainDecimal(UnsafeBufferPointer(rebasing: text[range])) { return .success(value) }
  let s = String(decoding: UnsafeBufferPointer(rebasing: text[range]), as: UTF8.self)
  if let value = Double(s) { return .success(value) }
  // The text is not repeated in the message: a value may be a secret.
  return .failure(
    ScalarError(
      code: .invalidNumber, message: "invalid <real>: expected a decimal number, nan, inf or -inf",
      offset: range.lowerBound))
}

/// `-12.345`: an optional minus, digits, and a dot between digits, at most 15 digits in all: exact by one
/// division (Clinger's fast path: both operands are exact doubles), without the text and `strtod`
/// that other spellings (exponents, `nan`, long mantissas) take.
private func plainDecimal(_ text: UnsafeBufferPointer<UInt8>) -> Double? {
  var i = 0
  let negative = i < text.count && text[i] == UInt8(ascii: "-")
  if negative { i += 1 }
  var mantissa: UInt64 = 0
  var digits = 0
  var dot = -1
  while i < text.count {
    let c = text[i]
    if c &- UInt8(ascii: "0") < 10 {
      mantissa = mantissa &* 10 &+ UInt64(c &- UInt8(ascii: "0"))
      digits += 1
    } else if c == UInt8(ascii: "."), dot < 0, digits > 0 {
      dot = digits
    } else {
      return nil
    }
    i += 1
  }
  guard digits > 0, digits <= 15, dot != digits else { return nil }
  let value = Double(mantissa) / powersOfTen[dot < 0 ? 0 : digits - dot]
  return negative ? -value : value
}

/// Parses `<date>` text: ISO 8601 in UTC, `2024-01-02T03:04:05Z`, whole seconds.
func parseDate(_ text: UnsafeBufferPointer<UInt8>) -> Result<Date, ScalarError> {
  let range = trimmed(text)
  let s = UnsafeBufferPointer(rebasing: text[range])
  let failure = Result<Date, ScalarError>.failure(
    ScalarError(
      code: .invalidPropertyList,
      message: "invalid <date>: expected YYYY-MM-DDTHH:MM:SSZ",
      offset: range.lowerBound))
  // Separators sit at fixed places; every other place must be a digit.
  guard s.count == 20 else { return failure }
  for (i, c) in s.enumerated() {
    switch i {
    case 4, 7: guard c == UInt8(ascii: "-") else { return failure }
    case 10: guard c == UInt8(ascii: "T") else { return failure }
    case 13, 16: guard c == UInt8(ascii: ":") else { return failure }
    case 19: guard c == UInt8(ascii: "Z") else { return failure }
    default: guard c >= 0x30, c <= 0x39 else { return failure }
    }
  }
  func number(_ from: Int, _ count: Int) -> Int {
    s[from..<(from + count)].reduce(0) { $0 * 10 + Int($1 - 0x30) }
  }
  let (year, month, day) = (number(0, 4), number(5, 2), number(8, 2))
  let (hour, minute, second) = (number(11, 2), number(14, 2), number(17, 2))
  guard (1...12).contains(month), day >= 1, day <= daysIn(month: month, year: year), hour < 24, minute < 60,
    second < 60
  else { return failure }
  let seconds =
    daysFromCivil(year: year, month: month, day: day) * 86_400 + hour * 3_600 + minute * 60 + second
  return .success(Date(timeIntervalSince1970: Double(seconds)))
}

private func daysIn(month: Int, year: Int) -> Int {
  switch month {
  case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
  case 4, 6, 9, 11: 30
  default: 31
  }
}

/// Days since 1970-01-01 in the proleptic Gregorian calendar (Howard Hinnant's `days_from_civil`).
private func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
  let y = month <= 2 ? year - 1 : year
  let era = (y >= 0 ? y : y - 399) / 400
  let yearOfEra = y - era * 400
  let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
  let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
  return era * 146_097 + dayOfEra - 719_468
}

/// The dates `<date>` text can hold, in seconds since 1970: 0000-01-01T00:00:00Z up to the end of 9999.
let xmlDateSeconds: Range<Double> = -62_167_219_200..<253_402_300_800

/// Formats a date as `YYYY-MM-DDTHH:MM:SSZ`, dropping fractional seconds (rounding toward the past).
/// The date must be in ``xmlDateSeconds``.
func formatDate(_ date: Date) -> String {
  let total = Int(date.timeIntervalSince1970.rounded(.down))
  let days = total >= 0 ? total / 86_400 : (total - 86_399) / 86_400
  let secondsOfDay = total - days * 86_400
  // Hinnant's civil_from_days.
  let z = days + 719_468
  let era = (z >= 0 ? z : z - 146_096) / 146_097
  let dayOfEra = z - era * 146_097
  let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
  let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
  let mp = (5 * dayOfYear + 2) / 153
  let day = dayOfYear - (153 * mp + 2) / 5 + 1
  let month = mp < 10 ? mp + 3 : mp - 9
  let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
  func pad(_ n: Int, _ width: Int) -> String {
    let s = String(n)
    return String(repeating: "0", count: max(0, width - s.count)) + s
  }
  return "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))T\(pad(secondsOfDay / 3_600, 2)):"
    + "\(pad(secondsOfDay / 60 % 60, 2)):\(pad(secondsOfDay % 60, 2))Z"
}

/// Decodes `<data>` text: base64, with whitespace anywhere and `=` padding only at the end.
func decodeBase64(_ text: UnsafeBufferPointer<UInt8>) -> Result<Data, ScalarError> {
  var out = [UInt8]()
  out.reserveCapacity(text.count / 4 * 3)
  var accumulator: UInt32 = 0
  var sextets = 0
  var padding = 0
  for (i, c) in text.enumerated() {
    if c.isXMLSpace { continue }
    if c == UInt8(ascii: "=") {
      padding += 1
      guard padding <= 2, sextets % 4 >= 2 else {
        return .failure(
          ScalarError(code: .invalidPropertyList, message: "misplaced '=' in <data>", offset: i))
      }
      continue
    }
    guard padding == 0, let value = base64Value(c) else {
      return .failure(
        ScalarError(code: .invalidPropertyList, message: "invalid base64 character in <data>", offset: i))
    }
    accumulator = accumulator << 6 | UInt32(value)
    sextets += 1
    if sextets % 4 == 0 {
      out.append(UInt8(truncatingIfNeeded: accumulator >> 16))
      out.append(UInt8(truncatingIfNeeded: accumulator >> 8))
      out.append(UInt8(truncatingIfNeeded: accumulator))
      accumulator = 0
    }
  }
  switch sextets % 4 {
  case 0: break
  case 2: out.append(UInt8(truncatingIfNeeded: accumulator >> 4))
  case 3:
    out.append(UInt8(truncatingIfNeeded: accumulator >> 10))
    out.append(UInt8(truncatingIfNeeded: accumulator >> 2))
  default:
    return .failure(ScalarError(code: .invalidPropertyList, message: "truncated base64 in <data>", offset: 0))
  }
  if padding > 0, (sextets % 4) + padding != 4 {
    return .failure(
      ScalarError(code: .invalidPropertyList, message: "wrong base64 padding in <data>", offset: 0))
  }
  return .success(Data(out))
}

private func base64Value(_ c: UInt8) -> UInt8? {
  switch c {
  case UInt8(ascii: "A")...UInt8(ascii: "Z"): c - UInt8(ascii: "A")
  case UInt8(ascii: "a")...UInt8(ascii: "z"): c - UInt8(ascii: "a") + 26
  case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0") + 52
  case UInt8(ascii: "+"): 62
  case UInt8(ascii: "/"): 63
  default: nil
  }
}

extension UInt8 {
  static let tab = UInt8(ascii: "\t")
  static let newline = UInt8(ascii: "\n")
  static let cr = UInt8(ascii: "\r")
  static let space = UInt8(ascii: " ")
  static let lt = UInt8(ascii: "<")
  static let gt = UInt8(ascii: ">")
  static let amp = UInt8(ascii: "&")
  static let slash = UInt8(ascii: "/")
  static let bang = UInt8(ascii: "!")
  static let quote = UInt8(ascii: "\"")
  static let apostrophe = UInt8(ascii: "'")
  static let semicolon = UInt8(ascii: ";")
  static let openBracket = UInt8(ascii: "[")
  static let closeBracket = UInt8(ascii: "]")

  /// Whether the byte is XML whitespace.
  var isXMLSpace: Bool { self == .space || self == .tab || self == .newline || self == .cr }

  /// Whether the byte may appear in an element name (ASCII letters, digits, `-_.:`, and any non-ASCII byte).
  @inline(__always) var isNameByte: Bool {
    // One bit per byte below 128 (`-` `.` digits `:` below 64; letters and `_` above), every byte from
    // 0x80 up: a shift and a test, where comparing against each class took a chain of branches.
    self >= 0x80 || (self < 64 ? Self.xmlLowNameBits : Self.xmlHighNameBits) &>> UInt64(self & 63) & 1 != 0
  }

  /// The name bytes among 0–63: `-` `.` `0`–`9` `:` (a test checks both constants byte by byte).
  static let xmlLowNameBits: UInt64 = 0x07FF_6000_0000_0000
  /// The name bytes among 64–127, each bit `byte - 64`: `A`–`Z` `_` `a`–`z`.
  static let xmlHighNameBits: UInt64 = 0x07FF_FFFE_87FF_FFFE

  /// The value of a hexadecimal digit, or `nil`.
  var digitValue: UInt8? {
    switch self {
    case 0x30...0x39: self - 0x30
    case UInt8(ascii: "a")...UInt8(ascii: "f"): self - UInt8(ascii: "a") + 10
    case UInt8(ascii: "A")...UInt8(ascii: "F"): self - UInt8(ascii: "A") + 10
    default: nil
    }
  }
}
