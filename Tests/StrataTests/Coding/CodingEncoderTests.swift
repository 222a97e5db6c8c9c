import Foundation
import Testing

@testable import Strata

struct Endpoint: Codable, Equatable {
  var url: URL
  var retries: UInt8
}

struct Everything: Codable, Equatable {
  var name: String
  var started: Date
  var key: Data
  var timeout: Duration
  var level: LogLevel
  var ratio: Double
  var scale: Float
  var big: Int64
  var small: Int8
  var unsigned: UInt64
  var enabled: Bool
  var socket: URL
  var endpoint: Endpoint
  var tags: [String]
  var limits: [String: Int]
  var note: String?
}

@Suite("Coding: encoder and round trips")
struct CodingEncoderTests {
  static let sample = Everything(
    name: "demo", started: Date(timeIntervalSince1970: 1_714_564_800), key: Data([0xDE, 0xAD, 0xBE, 0xEF]),
    timeout: .seconds(5400), level: .warning, ratio: 0.25, scale: 1.5, big: Int64.min, small: -8,
    unsigned: UInt64(Int.max), enabled: true, socket: URL(filePath: "/var/run/demo.sock"),
    endpoint: Endpoint(url: URL(string: "https://example.com:8443/api")!, retries: 3), tags: ["a", "b"],
    limits: ["zeta": 2, "alpha": 1], note: nil)

  @Test func encodesAReadableNestedTable() throws {
    let origin = Origin.codeDefault
    let tree = try #require(try SettingEncoder().encode(Self.sample, origin: origin))
    let expected = table([
      ("name", node(.string("demo"))),
      ("started", node(.date(Date(timeIntervalSince1970: 1_714_564_800)))),
      ("key", node(.data(Data([0xDE, 0xAD, 0xBE, 0xEF])))),
      ("timeout", node(.string("1h30m"))),
      ("level", node(.string("warning"))),
      ("ratio", node(.double(0.25))),
      ("scale", node(.double(1.5))),
      ("big", node(.integer(Int.min))),
      ("small", node(.integer(-8))),
      ("unsigned", node(.integer(Int.max))),
      ("enabled", node(.bool(true))),
      ("socket", node(.string("/var/run/demo.sock"))),
      (
        "endpoint",
        table([("url", node(.string("https://example.com:8443/api"))), ("retries", node(.integer(3)))])
      ),
      ("tags", node(.array([node(.string("a")), node(.string("b"))]))),
      ("limits", table([("alpha", node(.integer(1))), ("zeta", node(.integer(2)))])),
    ])
    #expect(tree == expected)
    // Declaration order, not alphabetical; the nil `note` is left out.
    #expect(tree.table?.keys.first == "name")
    #expect(tree.table?.contains("note") == false)
    #expect(tree.origin == origin)
    #expect(tree.value(at: "endpoint.retries")?.origin == origin)
    #expect(tree.value(at: "tags")?.origin == origin)
  }

  @Test func roundTripsThroughTheTree() throws {
    let tree = try #require(try SettingEncoder().encode(Self.sample))
    #expect(try decoded(Everything.self, tree, key: "everything") == Self.sample)
  }

  @Test func roundTripsThroughTextOnly() throws {
    // What an INI file or the environment would hold for the same values.
    let tree = asEnvironmentStrings(try #require(try SettingEncoder().encode(Self.sample)))
    #expect(tree.value(at: "tags") == node(.string("a, b")))
    #expect(tree.value(at: "started") == node(.string("2024-05-01T12:00:00Z")))
    #expect(try decoded(Everything.self, tree, key: "everything") == Self.sample)
  }

  @Test func leavesRoundTrip() throws {
    try roundTrip(0)
    try roundTrip(Int.max)
    try roundTrip(Int.min)
    try roundTrip(Int8.min)
    try roundTrip(Int16.max)
    try roundTrip(Int32.min)
    try roundTrip(UInt.min)
    try roundTrip(UInt8.max)
    try roundTrip(UInt16.max)
    try roundTrip(UInt32.max)
    try roundTrip(UInt64(Int.max))
    try roundTrip(true)
    try roundTrip(false)
    try roundTrip(0.1)
    try roundTrip(-1e300)
    try roundTrip(Float(0.1))
    try roundTrip("")
    try roundTrip("with, commas")
    try roundTrip(Date(timeIntervalSinceReferenceDate: 12_345.678_9))
    try roundTrip(Data())
    try roundTrip(Data((0...255).map(UInt8.init)))
    try roundTrip(URL(string: "https://example.com/a%20b?q=1#f")!)
    try roundTrip(URL(filePath: "/srv/with space/", directoryHint: .isDirectory))
    try roundTrip(Duration.zero)
    try roundTrip(Duration.milliseconds(1500))
    try roundTrip(Duration.seconds(-90))
    try roundTrip(Duration(attoseconds: 1))
    try roundTrip(LogLevel.info)
    try roundTrip(Priority.high)
    try roundTrip([Int]())
    try roundTrip([[1, 2], [3]])
    try roundTrip(["x": ["y": true]])
    try roundTrip([Endpoint(url: URL(string: "http://a")!, retries: 0)])
    try roundTrip(Set(["p", "q"]))
    try roundTrip(Optional(5))
  }

  @Test(arguments: [
    ("42", "Int"), ("-7", "Int8"), ("65535", "UInt16"), ("yes", "Bool"), ("1e3", "Double"), ("0.5", "Float"),
    ("2024-05-01T12:00:00Z", "Date"), ("aGk=", "Data"), ("https://x.org", "URL"), ("/run/x", "URL"),
    ("1h30m", "Duration"), ("90", "Duration"), ("debug", "LogLevel"), ("a, b", "[String]"),
    ("1, 2", "[UInt8]"),
    ("", "[Int]"),
  ])
  func textFormsDecodeAndEncodeBack(_ source: String, _ type: String) throws {
    // Decoding the text, encoding the value and decoding again gives the same value.
    func check<T: Codable & Equatable>(_: T.Type) throws {
      let value = try decoded(T.self, text(source))
      let tree = try #require(try SettingEncoder().encode(value))
      #expect(try decoded(T.self, tree) == value)
      #expect(try decoded(T.self, asEnvironmentStrings(tree)) == value)
    }
    switch type {
    case "Int": try check(Int.self)
    case "Int8": try check(Int8.self)
    case "UInt16": try check(UInt16.self)
    case "Bool": try check(Bool.self)
    case "Double": try check(Double.self)
    case "Float": try check(Float.self)
    case "Date": try check(Date.self)
    case "Data": try check(Data.self)
    case "URL": try check(URL.self)
    case "Duration": try check(Duration.self)
    case "LogLevel": try check(LogLevel.self)
    case "[String]": try check([String].self)
    case "[UInt8]": try check([UInt8].self)
    case "[Int]": try check([Int].self)
    default: Issue.record("no case for \(type)")
    }
  }

  @Test func nilAtTheTopIsNil() throws {
    #expect(try SettingEncoder().encode(Int?.none) == nil)
    #expect(try SettingEncoder().encode(Int?.some(3)) == node(.integer(3)))
  }

  @Test func unsignedAboveIntMaxIsRefused() {
    struct Holder: Encodable { var counter: UInt64 }
    #expect {
      try SettingEncoder().encode(Holder(counter: .max))
    } throws: { error in
      let error = error as? StrataError
      return error?.code == .invalidValue
        && error?.message
          == "cannot encode UInt64 18446744073709551615 for counter: out of range (integer settings hold at most \(Int.max))"
    }
    #expect(throws: StrataError.self) { try SettingEncoder().encode(UInt.max) }
  }

  @Test func nilInsideAnArrayIsRefused() {
    #expect {
      try SettingEncoder().encode(["ports": [1, nil, 3]])
    } throws: { error in
      (error as? StrataError)?.message == "cannot encode nil in an array, at ports[1]"
    }
  }

  @Test func errorsFromCustomEncodersAreWrapped() {
    struct Picky: Encodable {
      func encode(to encoder: any Encoder) throws {
        throw EncodingError.invalidValue(0, .init(codingPath: [], debugDescription: "never"))
      }
    }
    #expect {
      try SettingEncoder().encode(["p": Picky()])
    } throws: { error in
      (error as? StrataError)?.message == "cannot encode Picky for p: never"
    }
  }

  @Test func emptyStructIsAnEmptyTable() throws {
    struct Nothing: Codable, Equatable {}
    #expect(try SettingEncoder().encode(Nothing()) == table([]))
    try roundTrip(Nothing())
  }

  private func roundTrip<T: Codable & Equatable>(
    _ value: T, sourceLocation: SourceLocation = #_sourceLocation
  )
    throws
  {
    let tree = try #require(try SettingEncoder().encode(value), sourceLocation: sourceLocation)
    #expect(try decoded(T.self, tree) == value, sourceLocation: sourceLocation)
  }
}
