#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

extension TOMLParser {
  /// A date or time at `pos`, or `nil` (nothing consumed) when the digits there start a number.
  ///
  /// An offset date-time names an instant: it becomes a `Date`. A local date-time, a local date and a
  /// local time name no instant (they depend on where they are read), so they stay text in ISO 8601
  /// form: `1979-05-27T07:32:00`, `1979-05-27`, `07:32:00.5` (a `T` for the space or `t` TOML allows).
  mutating func parseDateOrTime() throws(StrataError) -> SettingValue.Kind? {
    let startColumn = column
    if digitsAhead(4, from: pos), byte(at: pos + 4) == UInt8(ascii: "-") {
      let (year, month, day) = try parseDate(startColumn: startColumn)
      var text = String(decoding: UnsafeBufferPointer(rebasing: bytes[(pos - 10)..<pos]), as: UTF8.self)
      let separator = byte(at: pos)
      let timeFollows =
        (separator == UInt8(ascii: "T") || separator == UInt8(ascii: "t")
          || separator == UInt8(ascii: " ")) && digitsAhead(2, from: pos + 1)
        && byte(at: pos + 3) == UInt8(ascii: ":")
      guard timeFollows else { return .string(text) }
      pos += 1
      let (seconds, fraction, timeText) = try parseTime(startColumn: startColumn)
      text += "T" + timeText
      guard let offset = try parseOffset(startColumn: startColumn) else { return .string(text) }
      let days = Self.daysSince1970(year: year, month: month, day: day)
      let interval = Double(days * 86_400 + seconds - offset) + fraction
      return .date(Date(timeIntervalSince1970: interval))
    }
    if digitsAhead(2, from: pos), byte(at: pos + 2) == UInt8(ascii: ":") {
      return .string(try parseTime(startColumn: startColumn).text)
    }
    return nil
  }

  /// `YYYY-MM-DD`, a real day of the proleptic Gregorian calendar.
  private mutating func parseDate(startColumn: Int) throws(StrataError) -> (Int, Int, Int) {
    guard digitsAhead(2, from: pos + 5), byte(at: pos + 7) == UInt8(ascii: "-"), digitsAhead(2, from: pos + 8)
    else {
      throw error(.invalidValue, "a date is written YYYY-MM-DD (1979-05-27)", column: startColumn)
    }
    let year = number(at: pos, count: 4)
    let month = number(at: pos + 5, count: 2)
    let day = number(at: pos + 8, count: 2)
    guard (1...12).contains(month), (1...Self.daysIn(month: month, year: year)).contains(day) else {
      throw error(
        .invalidValue, "there is no day \(day) of month \(month) in \(year); write a date that exists",
        column: startColumn)
    }
    pos += 10
    return (year, month, day)
  }

  /// `HH:MM:SS` with an optional fraction of a second: the seconds of the day, the fraction, and the text
  /// as written.
  private mutating func parseTime(startColumn: Int) throws(StrataError) -> (
    seconds: Int, fraction: Double, text: String
  ) {
    let start = pos
    guard digitsAhead(2, from: pos), byte(at: pos + 2) == UInt8(ascii: ":"), digitsAhead(2, from: pos + 3),
      byte(at: pos + 5) == UInt8(ascii: ":"), digitsAhead(2, from: pos + 6)
    else {
      throw error(
        .invalidValue, "a time is written HH:MM:SS (07:32:00), seconds included", column: startColumn)
    }
    let hour = number(at: pos, count: 2)
    let minute = number(at: pos + 3, count: 2)
    let second = number(at: pos + 6, count: 2)
    guard hour < 24, minute < 60, second < 60 else {
      throw error(
        .invalidValue, "the time has an hour above 23, or minutes or seconds above 59", column: startColumn)
    }
    pos += 8
    var fraction = 0.0
    if byte(at: pos) == UInt8(ascii: ".") {
      pos += 1
      var scale = 0.1
      let digitsStart = pos
      while pos < bytes.count, Self.isDigit(bytes[pos]) {
        // Past nanoseconds the digits are dropped, as TOML asks (truncated, not rounded).
        if pos - digitsStart < 9 { fraction += Double(bytes[pos] - UInt8(ascii: "0")) * scale }
        scale /= 10
        pos += 1
      }
      guard pos > digitsStart else {
        throw error(.invalidValue, "a fraction of a second needs digits after its '.'", column: startColumn)
      }
    }
    let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<pos]), as: UTF8.self)
    return (hour * 3600 + minute * 60 + second, fraction, text)
  }

  /// `Z` or `±HH:MM` after a time, in seconds east of UTC; `nil` when there is none (a local date-time).
  private mutating func parseOffset(startColumn: Int) throws(StrataError) -> Int? {
    switch byte(at: pos) {
    case UInt8(ascii: "Z"), UInt8(ascii: "z"):
      pos += 1
      return 0
    case UInt8(ascii: "+"), UInt8(ascii: "-"):
      let sign = byte(at: pos) == UInt8(ascii: "-") ? -1 : 1
      guard digitsAhead(2, from: pos + 1), byte(at: pos + 3) == UInt8(ascii: ":"),
        digitsAhead(2, from: pos + 4)
      else {
        throw error(.invalidValue, "a time offset is written Z or ±HH:MM (+05:30)", column: startColumn)
      }
      let hours = number(at: pos + 1, count: 2)
      let minutes = number(at: pos + 4, count: 2)
      guard hours < 24, minutes < 60 else {
        throw error(
          .invalidValue, "the time offset has an hour above 23 or minutes above 59", column: startColumn)
      }
      pos += 6
      return sign * (hours * 3600 + minutes * 60)
    default:
      return nil
    }
  }

  private func byte(at offset: Int) -> UInt8? { offset < bytes.count ? bytes[offset] : nil }

  private func digitsAhead(_ count: Int, from offset: Int) -> Bool {
    guard offset + count <= bytes.count else { return false }
    return (offset..<(offset + count)).allSatisfy { Self.isDigit(bytes[$0]) }
  }

  private func number(at offset: Int, count: Int) -> Int {
    (offset..<(offset + count)).reduce(0) { $0 * 10 + Int(bytes[$1] - UInt8(ascii: "0")) }
  }

  static func daysIn(month: Int, year: Int) -> Int {
    switch month {
    case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
    case 4, 6, 9, 11: 30
    default: 31
    }
  }

  /// Days from 1970-01-01 to a day of the proleptic Gregorian calendar (Howard Hinnant's algorithm).
  static func daysSince1970(year: Int, month: Int, day: Int) -> Int {
    let shifted = month <= 2 ? year - 1 : year
    let era = (shifted >= 0 ? shifted : shifted - 399) / 400
    let yearOfEra = shifted - era * 400
    let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
    let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
    return era * 146_097 + dayOfEra - 719_468
  }
}
