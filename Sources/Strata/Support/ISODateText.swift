#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// ISO 8601 text for dates, in the proleptic Gregorian calendar that ISO 8601 and property lists use.
///
/// Foundation's `.iso8601` style switches to the Julian calendar before 1582-10-15, so Apple's
/// `distantPast` would print as `0002-01-01T00:00:00Z` in one place and `0001-12-30T00:00:00Z` in a plist.
/// Every date Strata prints or reads as `YYYY-MM-DDTHH:MM:SSZ` goes through here instead.
enum ISODateText {
  /// `YYYY-MM-DDTHH:MM:SSZ` (whole seconds, toward the past) for years 0000…9999; Foundation's style
  /// beyond them.
  static func format(_ date: Date) -> String {
    xmlDateSeconds.contains(date.timeIntervalSince1970) ? formatDate(date) : date.formatted(.iso8601)
  }

  /// Reads `YYYY-MM-DDTHH:MM:SSZ` in the proleptic calendar, and any other ISO 8601 form (fractional
  /// seconds, numeric offsets) with Foundation's style.
  static func parse(_ text: String) -> Date? {
    let utf8 = Array(text.utf8)
    let exact = utf8.withUnsafeBufferPointer { try? parseDate($0).get() }
    if let exact { return exact }
    return try? Date(text, strategy: .iso8601)
  }
}
