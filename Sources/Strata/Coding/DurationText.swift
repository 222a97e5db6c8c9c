/// The text form of a `Duration` in settings: `250ms`, `30s`, `1h30m`, `1.5s`, `100us`, `2d`.
///
/// A duration is one or more `<number><unit>` parts with units `d` (86 400 s), `h`, `m`, `s`, `ms`,
/// `us` (or `µs`), `ns`, each unit smaller than the one before it, with an optional leading sign for the
/// whole. A number may have a decimal fraction (`1.5h`). A bare integer (`30`) means seconds, so that
/// INI files and environment variables can say `timeout = 30`. Surrounding whitespace is ignored;
/// inner whitespace, repeated or out-of-order units (`5m5m`, `30s1h`) and inner signs (`1h-5m`) are not,
/// because they are far more likely to be typos than intent. Values that need more than 64 bits of whole
/// seconds, or finer precision than an attosecond, are rejected rather than rounded.
enum DurationText {
  /// Parses duration text; returns `nil` for anything that is not exactly a duration: `1h30m` is
  /// 5400 seconds, `5 minutes` is `nil`.
  static func parse(_ text: String) -> Duration? {
    try? parseChecked(text)
  }

  /// Why text is not a duration: not duration text at all, or well-formed but beyond the range.
  enum Failure: Error {
    case malformed
    case outOfRange
  }

  /// Like ``parse(_:)``, but says whether a failure is the shape or the range, for messages.
  static func parseChecked(_ text: String) throws(Failure) -> Duration {
    Duration(attoseconds: try parseAttoseconds(Array(trimmed(text).unicodeScalars)))
  }

  /// Formats a duration in its shortest exact text, such as `1h30m`, `250ms`, `1.5s` or `0s`.
  ///
  /// Days, hours and minutes are always written as whole parts (`1h30m`, never `1.5h`); what is left
  /// below a minute is written either as one decimal number in the largest unit that fits (`1.5s`) or as
  /// whole parts (`1s1us`), whichever is shorter. ``parse(_:)`` reads every result back exactly.
  static func format(_ duration: Duration) -> String {
    let total = duration.attoseconds
    if total == 0 { return "0s" }
    let magnitude = total.magnitude
    var rest = magnitude
    var text = total < 0 ? "-" : ""
    for unit in units where unit.attoseconds >= minute {
      let count = rest / UInt128(unit.attoseconds)
      if count > 0 {
        text += "\(count)\(unit.name)"
        rest %= UInt128(unit.attoseconds)
      }
    }
    if rest > 0 { text += subMinute(rest) }
    return text
  }

  // MARK: - Units

  private static let nanosecond: Int128 = 1_000_000_000
  private static let second: Int128 = 1_000_000_000_000_000_000
  private static let minute: Int128 = 60 * second

  /// Every unit, largest first; `parse` requires this order within one text.
  private static let units: [(name: String, attoseconds: Int128)] = [
    ("d", 86_400 * second), ("h", 3_600 * second), ("m", minute), ("s", second),
    ("ms", 1_000_000 * nanosecond), ("us", 1_000 * nanosecond), ("ns", nanosecond),
  ]

  /// The position of a unit name in ``units``; `µs` (micro sign) and `μs` (Greek mu) both mean `us`.
  private static func unitIndex(_ name: String) -> Int? {
    let canonical = (name == "\u{B5}s" || name == "\u{3BC}s") ? "us" : name
    return units.firstIndex { $0.name == canonical }
  }

  // MARK: - Parsing

  private static func parseAttoseconds(_ s: [Unicode.Scalar]) throws(Failure) -> Int128 {
    var i = 0
    var negative = false
    if i < s.count, s[i] == "+" || s[i] == "-" {
      negative = s[i] == "-"
      i += 1
    }
    guard i < s.count else { throw .malformed }
    // A bare integer is seconds.
    if s[i...].allSatisfy(isDigit) {
      return try signed(try multiply(try integer(s[i...]), second), negative)
    }
    var total: Int128 = 0
    var previousUnit = -1
    while i < s.count {
      let wholeStart = i
      while i < s.count, isDigit(s[i]) { i += 1 }
      guard i > wholeStart else { throw .malformed }
      let whole = s[wholeStart..<i]
      var fraction: ArraySlice<Unicode.Scalar> = []
      if i < s.count, s[i] == "." {
        i += 1
        let fractionStart = i
        while i < s.count, isDigit(s[i]) { i += 1 }
        guard i > fractionStart else { throw .malformed }
        fraction = s[fractionStart..<i]
      }
      let unitStart = i
      while i < s.count, !isDigit(s[i]), s[i] != "." { i += 1 }
      var name = ""
      name.unicodeScalars.append(contentsOf: s[unitStart..<i])
      guard let unit = unitIndex(name), unit > previousUnit else { throw .malformed }
      previousUnit = unit
      let part = try amount(whole: try integer(whole), fraction: fraction, unit: units[unit].attoseconds)
      total = try add(total, part)
    }
    return try signed(total, negative)
  }

  /// `whole.fraction` units in attoseconds. A fraction finer than an attosecond cannot be exact, so it
  /// is malformed rather than rounded.
  private static func amount(whole: Int128, fraction: ArraySlice<Unicode.Scalar>, unit: Int128)
    throws(Failure) -> Int128
  {
    var scale = unit
    var fractionPart: Int128 = 0
    for digit in fraction {
      let value = Int128(digit.value - 48)
      if scale % 10 != 0 {
        if value != 0 { throw .malformed }
        continue
      }
      scale /= 10
      fractionPart += value * scale
    }
    return try add(try multiply(whole, unit), fractionPart)
  }

  /// Applies the sign and checks that whole seconds fit in 64 bits, the range `Duration` promises.
  private static func signed(_ value: Int128, _ negative: Bool) throws(Failure) -> Int128 {
    let result = negative ? -value : value
    guard Int64(exactly: result / second) != nil else { throw .outOfRange }
    return result
  }

  private static func multiply(_ a: Int128, _ b: Int128) throws(Failure) -> Int128 {
    let (product, overflow) = a.multipliedReportingOverflow(by: b)
    if overflow { throw .outOfRange }
    return product
  }

  private static func add(_ a: Int128, _ b: Int128) throws(Failure) -> Int128 {
    let (sum, overflow) = a.addingReportingOverflow(b)
    if overflow { throw .outOfRange }
    return sum
  }

  private static func integer(_ digits: ArraySlice<Unicode.Scalar>) throws(Failure) -> Int128 {
    var value: Int128 = 0
    for digit in digits {
      value = try add(try multiply(value, 10), Int128(digit.value - 48))
    }
    return value
  }

  private static func isDigit(_ c: Unicode.Scalar) -> Bool { c >= "0" && c <= "9" }

  static func trimmed(_ text: String) -> Substring {
    let scalars = text.unicodeScalars
    guard let first = scalars.firstIndex(where: { !$0.properties.isWhitespace }) else { return "" }
    let last = scalars.lastIndex(where: { !$0.properties.isWhitespace })!
    return Substring(scalars[first...last])
  }

  // MARK: - Formatting

  /// Text for a remainder below one minute (and above zero).
  private static func subMinute(_ rest: UInt128) -> String {
    let small = units.filter { $0.attoseconds <= second }
    // One decimal number in the largest unit not above the remainder (a remainder below 1ns is written
    // as a fraction of a nanosecond).
    let unit = small.first { UInt128($0.attoseconds) <= rest } ?? small.last!
    let decimal = decimalText(rest, unit: UInt128(unit.attoseconds)) + unit.name
    // Whole parts, the last one (ns) carrying any fraction below a nanosecond.
    var parts = ""
    var left = rest
    for (index, unit) in small.enumerated() {
      let size = UInt128(unit.attoseconds)
      if index == small.count - 1 {
        if left > 0 { parts += decimalText(left, unit: size) + unit.name }
      } else if left >= size {
        parts += "\(left / size)\(unit.name)"
        left %= size
      }
    }
    return parts.unicodeScalars.count < decimal.unicodeScalars.count ? parts : decimal
  }

  /// `value / unit` as exact decimal text without trailing zeros (`1.5`, `250`).
  private static func decimalText(_ value: UInt128, unit: UInt128) -> String {
    var text = String(value / unit)
    var remainder = value % unit
    if remainder == 0 { return text }
    text += "."
    var scale = unit
    while remainder > 0 {
      scale /= 10
      text += String(remainder / scale)
      remainder %= scale
    }
    return text
  }
}
