import Foundation
import Testing

@testable import Strata

@Suite("Coding: DurationText")
struct CodingDurationTextTests {
  static let parsed: [(String, Duration)] = [
    ("250ms", .milliseconds(250)),
    ("30s", .seconds(30)),
    ("5m", .seconds(300)),
    ("1h", .seconds(3600)),
    ("1h30m", .seconds(5400)),
    ("1.5s", .milliseconds(1500)),
    ("100us", .microseconds(100)),
    ("100\u{B5}s", .microseconds(100)),
    ("100\u{3BC}s", .microseconds(100)),
    ("10ns", .nanoseconds(10)),
    ("2d", .seconds(172_800)),
    ("1d2h3m4s5ms6us7ns", .seconds(93784) + .nanoseconds(5_006_007)),
    ("0.5h", .seconds(1800)),
    ("0s", .zero),
    ("0", .zero),
    ("30", .seconds(30)),
    ("-1h30m", .seconds(-5400)),
    ("+2s", .seconds(2)),
    (" 5m\n", .seconds(300)),
    ("1.250000s", .milliseconds(1250)),
    ("0.5ns", Duration(attoseconds: 500_000_000)),
  ]

  @Test(arguments: parsed)
  func parses(_ text: String, _ expected: Duration) {
    #expect(DurationText.parse(text) == expected)
  }

  @Test(arguments: [
    "5 minutes", "1h-5m", "", " ", "-", "s", "1.5", "1.s", ".5s", "5M", "5H", "1 h", "1h 30m", "30s1h",
    "5m5m", "1ms1s", "1sec", "1y", "ms", "1e3s", "1,5s", "--1s", "1h+5m", "0x10s", "1.0000000000000000001ns",
  ])
  func rejects(_ text: String) {
    #expect(DurationText.parse(text) == nil)
  }

  @Test func overflowIsRejectedNotWrapped() {
    #expect(DurationText.parse("\(Int64.max)s") == .seconds(Int64.max))
    #expect(DurationText.parse("\(UInt64(Int64.max) + 1)s") == nil)
    #expect(DurationText.parse("99999999999999999999999999999999999999999d") == nil)
    #expect(DurationText.parse("106751991167301d") == nil)
    #expect(throws: DurationText.Failure.outOfRange) { try DurationText.parseChecked("9999999999999999999h") }
    #expect(throws: DurationText.Failure.malformed) { try DurationText.parseChecked("9h9x") }
  }

  static let formatted: [(Duration, String)] = [
    (.zero, "0s"),
    (.seconds(5400), "1h30m"),
    (.milliseconds(250), "250ms"),
    (.milliseconds(1500), "1.5s"),
    (.seconds(30), "30s"),
    (.seconds(90), "1m30s"),
    (.seconds(172_800), "2d"),
    (.seconds(129_600), "1d12h"),
    (.microseconds(100), "100us"),
    (.nanoseconds(10), "10ns"),
    (.seconds(1) + .microseconds(1), "1s1us"),
    (.microseconds(1500), "1.5ms"),
    (.seconds(3600) + .milliseconds(500), "1h500ms"),
    (.seconds(-5400), "-1h30m"),
    (.milliseconds(-250), "-250ms"),
    (Duration(attoseconds: 500_000_000), "0.5ns"),
    (Duration(attoseconds: 1), "0.000000001ns"),
  ]

  @Test(arguments: formatted)
  func formats(_ duration: Duration, _ expected: String) {
    #expect(DurationText.format(duration) == expected)
  }

  @Test(arguments: [
    Duration.zero, .seconds(Int64.max), .seconds(Int64.min), .nanoseconds(1), .nanoseconds(999_999_999),
    .seconds(59) + .nanoseconds(999_999_999), .seconds(86_399), .milliseconds(123_456_789),
    Duration(attoseconds: 123_456_789_012_345_678), .seconds(-1) + .nanoseconds(1),
  ])
  func formatThenParseIsExact(_ duration: Duration) {
    #expect(DurationText.parse(DurationText.format(duration)) == duration)
  }
}
