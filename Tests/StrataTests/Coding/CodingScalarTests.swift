import Foundation
import Testing

@testable import Strata

/// Every integer width, for range-edge tests.
enum IntegerWidth: String, CaseIterable, Sendable {
  case int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64

  func check() throws {
    switch self {
    case .int: try checkEdges(Int.self)
    case .int8: try checkEdges(Int8.self)
    case .int16: try checkEdges(Int16.self)
    case .int32: try checkEdges(Int32.self)
    case .int64: try checkEdges(Int64.self)
    case .uint: try checkEdges(UInt.self)
    case .uint8: try checkEdges(UInt8.self)
    case .uint16: try checkEdges(UInt16.self)
    case .uint32: try checkEdges(UInt32.self)
    case .uint64: try checkEdges(UInt64.self)
    }
  }
}

private func checkEdges<I: FixedWidthInteger & Decodable>(_ type: I.Type) throws {
  let name = String(describing: I.self)
  // min and max, as text and (where an Int can hold them) natively.
  #expect(try decoded(I.self, text(String(I.min))) == I.min)
  #expect(try decoded(I.self, text(" \(I.max)\t")) == I.max)
  if let max = Int(exactly: I.max) { #expect(try decoded(I.self, node(.integer(max))) == I.max) }
  if let min = Int(exactly: I.min) { #expect(try decoded(I.self, node(.integer(min))) == I.min) }
  // max + 1 and min - 1.
  let above = String(Int128(I.max) + 1)
  expectFailure(
    I.self, text(above), code: .invalidValue,
    message: "expected \(name) for a.b, found \"\(above)\" (out of range)")
  if let above = Int(exactly: Int128(I.max) + 1) {
    expectFailure(
      I.self, node(.integer(above)), code: .invalidValue,
      message: "expected \(name) for a.b, found \(above) (out of range)")
  }
  let below = String(Int128(I.min) - 1)
  expectFailure(I.self, text(below), code: .invalidValue)
  if let below = Int(exactly: Int128(I.min) - 1) {
    expectFailure(I.self, node(.integer(below)), code: .invalidValue)
  }
  // Integral doubles are fine; fractional ones are not.
  #expect(try decoded(I.self, node(.double(100))) == 100)
  expectFailure(I.self, node(.double(1.5)), message: "expected \(name) for a.b, found 1.5")
}

@Suite("Coding: leaves")
struct CodingScalarTests {
  @Test(arguments: IntegerWidth.allCases)
  func integerRangeEdges(width: IntegerWidth) throws {
    try width.check()
  }

  @Test func integersFromText() throws {
    #expect(try decoded(Int.self, text("8080")) == 8080)
    #expect(try decoded(Int.self, text("  -42 ")) == -42)
    #expect(try decoded(Int.self, text("+7")) == 7)
    #expect(try decoded(Int.self, node(.integer(-3))) == -3)
  }

  @Test(arguments: ["80a", "1.5", "", " ", "+", "-", "0x10", "1_000", "1 000", "١٢"])
  func integerTextThatIsNotAnInteger(_ bad: String) {
    expectFailure(Int.self, text(bad), message: "expected Int for a.b, found \"\(bad)\"")
  }

  @Test func integerFailureMessagesAndLocations() {
    expectFailure(
      Int.self, text("80a"), key: "server.port", message: "expected Int for server.port, found \"80a\"")
    expectFailure(
      UInt8.self, node(.integer(300)), code: .invalidValue,
      message: "expected UInt8 for a.b, found 300 (out of range)")
    expectFailure(
      UInt.self, text("-1"), code: .invalidValue,
      message: "expected UInt for a.b, found \"-1\" (out of range)")
    expectFailure(Int.self, node(.bool(true)), message: "expected Int for a.b, found true")
    expectFailure(Int.self, table([]), message: "expected Int for a.b, found a table")
    expectFailure(Int.self, node(.array([])), message: "expected Int for a.b, found an array")
    expectFailure(Int.self, node(.double(.infinity)), message: "expected Int for a.b, found inf")
  }

  @Test func environmentOriginsNameTheVariable() {
    let origin = Origin.environment(variable: "APP_SERVER_PORT")
    expectFailure(Int.self, text("eighty", origin), key: "server.port", at: origin)
    expectFailure(UInt16.self, text("70000", origin), code: .invalidValue, at: origin)
    expectFailure(Bool.self, text("maybe", .codeDefault), at: .codeDefault)
  }

  @Test(arguments: ["true", "TRUE", "True", "yes", "YES", "Yes", "on", "ON", "oN", "1", " true "])
  func boolTrueSpellings(_ spelling: String) throws {
    #expect(try decoded(Bool.self, text(spelling)) == true)
  }

  @Test(arguments: ["false", "FALSE", "False", "no", "NO", "nO", "off", "OFF", "Off", "0", "\tno\n"])
  func boolFalseSpellings(_ spelling: String) throws {
    #expect(try decoded(Bool.self, text(spelling)) == false)
  }

  @Test func boolFromNativeKinds() throws {
    #expect(try decoded(Bool.self, node(.bool(true))) == true)
    #expect(try decoded(Bool.self, node(.integer(0))) == false)
    #expect(try decoded(Bool.self, node(.integer(1))) == true)
    expectFailure(Bool.self, node(.integer(2)), message: "expected Bool for a.b, found 2")
    expectFailure(Bool.self, text("y"), message: "expected Bool for a.b, found \"y\"")
    expectFailure(Bool.self, text(""), message: "expected Bool for a.b, found \"\"")
    expectFailure(Bool.self, text("truee"))
    expectFailure(Bool.self, node(.double(1)))
  }

  @Test func floatingPoint() throws {
    #expect(try decoded(Double.self, node(.double(0.25))) == 0.25)
    #expect(try decoded(Double.self, node(.integer(3))) == 3)
    #expect(try decoded(Double.self, text("0.25")) == 0.25)
    #expect(try decoded(Double.self, text("1e3")) == 1000)
    #expect(try decoded(Double.self, text(" -1.5E-2 ")) == -0.015)
    #expect(try decoded(Double.self, text(".5")) == 0.5)
    #expect(try decoded(Double.self, text("7")) == 7)
    #expect(try decoded(Float.self, text("0.1")) == Float(0.1))
    #expect(try decoded(Float.self, node(.double(2.5))) == 2.5)
    // A native non-finite value (a property list may hold one) is kept as it is.
    #expect(try decoded(Double.self, node(.double(.infinity))) == .infinity)
  }

  @Test(arguments: ["nan", "NaN", "inf", "-infinity", "0x1p3", "1.2.3", "", "1e", "e3", "1,5", "one"])
  func floatingPointTextThatIsNotANumber(_ bad: String) {
    expectFailure(Double.self, text(bad), message: "expected Double for a.b, found \"\(bad)\"")
  }

  @Test func floatingPointOutOfRange() {
    expectFailure(
      Double.self, text("1e400"), code: .invalidValue,
      message: "expected Double for a.b, found \"1e400\" (out of range)")
    expectFailure(
      Float.self, node(.double(1e300)), code: .invalidValue,
      message: "expected Float for a.b, found 1e+300 (out of range)")
    expectFailure(Double.self, node(.bool(false)), message: "expected Double for a.b, found false")
  }

  @Test func strings() throws {
    #expect(try decoded(String.self, text("hello")) == "hello")
    #expect(try decoded(String.self, text("")) == "")
    #expect(try decoded(String.self, node(.integer(8080))) == "8080")
    #expect(try decoded(String.self, node(.double(0.5))) == "0.5")
    #expect(try decoded(String.self, node(.bool(true))) == "true")
    expectFailure(String.self, table([]), message: "expected String for a.b, found a table")
    expectFailure(String.self, node(.array([text("x")])), message: "expected String for a.b, found an array")
    expectFailure(
      String.self, node(.data(Data([1, 2]))), message: "expected String for a.b, found data (2 bytes)")
  }

  @Test func dates() throws {
    let noon = Date(timeIntervalSince1970: 1_714_564_800)
    #expect(try decoded(Date.self, node(.date(noon))) == noon)
    #expect(try decoded(Date.self, text("2024-05-01T12:00:00Z")) == noon)
    #expect(try decoded(Date.self, text(" 2024-05-01T14:00:00+02:00 ")) == noon)
    #expect(try decoded(Date.self, text("2024-05-01T12:00:00.250Z")) == noon.addingTimeInterval(0.25))
    expectFailure(Date.self, text("yesterday"), message: "expected Date for a.b, found \"yesterday\"")
    expectFailure(Date.self, text("2024-05-01 12:00"))
    expectFailure(Date.self, text("2024-13-01T12:00:00Z"))
    expectFailure(Date.self, node(.integer(1_714_564_800)))
  }

  @Test func data() throws {
    #expect(try decoded(Data.self, node(.data(Data([0, 255])))) == Data([0, 255]))
    #expect(try decoded(Data.self, text("aGVsbG8=")) == Data("hello".utf8))
    #expect(try decoded(Data.self, text("")) == Data())
    expectFailure(Data.self, text("not base64!"), message: "expected Data for a.b, found \"not base64!\"")
    expectFailure(Data.self, text("aGVsbG8"))
    expectFailure(Data.self, node(.array([node(.integer(1))])))
  }

  @Test func urls() throws {
    #expect(
      try decoded(URL.self, text("https://example.com/a?b=c")) == URL(string: "https://example.com/a?b=c"))
    #expect(try decoded(URL.self, text("unix:///var/run/x.sock")).scheme == "unix")
    let socket = try decoded(URL.self, text("/var/run/x.sock"))
    #expect(socket.isFileURL)
    #expect(socket.path(percentEncoded: false) == "/var/run/x.sock")
    #expect(try decoded(URL.self, text("/srv/data/")).hasDirectoryPath)
  }

  /// Found by the fuzzer: a file URL with a host and no path was written as its (empty) path, which
  /// does not read back. Every URL that decodes must survive a write and a read.
  @Test(arguments: [
    "file://port=1", "file:///etc/x.conf", "/var/run/x.sock", "https://h/p?q", "file://host/p",
  ])
  func urlsSurviveAWrite(_ written: String) throws {
    let url = try decoded(URL.self, text(written))
    let encoded = try #require(try SettingEncoder().encode(url))
    let again = try decoded(URL.self, encoded)
    #expect(again.absoluteString == url.absoluteString, "\(written) → \(encoded) → \(again)")
  }

  @Test(arguments: ["", "   ", "http://a b", "://x", "1http://x"])
  func urlGarbage(_ bad: String) {
    expectFailure(URL.self, text(bad), message: "expected URL for a.b, found \"\(bad)\"")
  }

  @Test(arguments: ["not a url", "example.com"])
  func aURLWithoutASchemeOrASlashIsRefusedWithTheWayToWriteAPath(_ bad: String) {
    expectFailure(
      URL.self, text(bad),
      message: "expected URL for a.b, found \"\(bad)\" (a URL needs a scheme; a path relative to the file, a "
        + "slash: ./\(bad))")
  }

  private let durationForms =
    "write it as 30s, 250ms or 1h30m, with units d, h, m, s, ms, us, ns; a bare number is seconds"

  @Test func durations() throws {
    #expect(try decoded(Duration.self, text("250ms")) == .milliseconds(250))
    #expect(try decoded(Duration.self, text("1h30m")) == .seconds(5400))
    #expect(try decoded(Duration.self, text("30")) == .seconds(30))
    #expect(try decoded(Duration.self, node(.integer(30))) == .seconds(30))
    #expect(try decoded(Duration.self, node(.double(1.5))) == .milliseconds(1500))
    expectFailure(
      Duration.self, text("5 minutes"), key: "server.timeout",
      message: "expected Duration for server.timeout, found \"5 minutes\" (\(durationForms))")
    expectFailure(
      Duration.self, text("99999999999999999999d"), code: .invalidValue,
      message: "expected Duration for a.b, found \"99999999999999999999d\" (out of range)")
    expectFailure(Duration.self, node(.bool(true)))
    expectFailure(
      Duration.self, table([]), message: "expected Duration for a.b, found a table (\(durationForms))")
  }

  @Test func longAndMultiLineTextIsShortenedInMessages() {
    let long = String(repeating: "x", count: 200)
    let error = decodingError(Int.self, text(long))
    #expect(error?.message == "expected Int for a.b, found \"\(String(repeating: "x", count: 80))…\"")
    expectFailure(Int.self, text("1\n2\""), message: "expected Int for a.b, found \"1\\n2\\\"\"")
  }
}
