import Foundation
import Testing

@testable import Strata

/// Parses any JSON value (not only objects), for tests.
func jsonValue(_ text: String, maxDepth: Int = 512) throws(StrataError) -> SettingValue? {
  try JSONParser.parseValue(Array(text.utf8), path: "t", maxDepth: maxDepth).value
}

@Suite struct JSONPositionTests {
  static let document = """
    {
      "name": "demo",
      "server": {
        "port": 8080,
        "hosts": ["a", "b"]
      },
      "émoji": "héllo", "after": true
    }
    """

  @Test(arguments: ["\n", "\r\n"])
  func everyNodeHasTheLineAndColumnOfItsFirstByte(lineEnding: String) throws {
    let text = Self.document.replacingOccurrences(of: "\n", with: lineEnding)
    let root = try parse(text, as: JSONFormat(), path: "/etc/demo.json").root
    #expect(root.origin == .file(path: "/etc/demo.json", line: 1, column: 1))
    #expect(position(root.value(at: "name")) == "2:11")
    #expect(position(root.value(at: "server")) == "3:13")
    #expect(position(root.value(at: "server.port")) == "4:13")
    let hosts = try #require(root.value(at: "server.hosts"))
    #expect(position(hosts) == "5:14")
    guard case .array(let elements) = hosts.kind else { Issue.record("not an array"); return }
    #expect(elements.map(position) == ["5:15", "5:20"])
    // "é" is two bytes: columns count UTF-8 bytes.
    #expect(position(root.value(at: "émoji")) == "7:13")
    #expect(position(root.value(at: "after")) == "7:32")
    #expect(root.value(at: "émoji")?.kind == .string("héllo"))
  }

  @Test func byteOrderMarkIsSkippedAndNotCounted() throws {
    let document = try JSONFormat().parse(
      [0xEF, 0xBB, 0xBF] + Array(#"{"a": 1}"#.utf8), path: "t", options: ParseOptions())
    #expect(document.root.value(at: "a")?.kind == .integer(1))
    #expect(position(document.root) == "1:1")
    #expect(position(document.root.value(at: "a")) == "1:7")
    let inside = parseError("{\"a\": \u{FEFF}1}", as: JSONFormat())
    #expect(inside?.message == "expected a value, found '\u{FEFF}' (U+FEFF)")
  }

  @Test func tabsCountAsOneColumn() throws {
    let root = try parse("{\n\t\"a\":\t[\t1]}", as: JSONFormat()).root
    guard case .array(let elements)? = root.value(at: "a")?.kind else { Issue.record("not an array"); return }
    #expect(position(root.value(at: "a")) == "2:7")
    #expect(elements.map(position) == ["2:9"])
  }
}

@Suite struct JSONStructureTests {
  @Test func duplicateKeyKeepsFirstPositionAndLastValueWithAWarning() throws {
    let text = """
      {
        "server": {
          "port": 80,
          "host": "a",
          "port": 8080
        }
      }
      """
    let document = try parse(text, as: JSONFormat(), path: "d.json")
    let server = try #require(document.root.value(at: "server")?.table)
    #expect(server.keys == ["port", "host"])
    #expect(server["port"]?.kind == .integer(8080))
    #expect(position(server["port"]) == "5:13")
    #expect(document.diagnostics.count == 1)
    let warning = try #require(document.diagnostics.first)
    #expect(warning.severity == .warning)
    #expect(warning.error.code == .duplicateKey)
    #expect(warning.error.message == #"duplicate key "port"; the last value wins (first set at line 3)"#)
    #expect(warning.error.location == "d.json:5:5")
  }

  @Test func diagnosticsAreInFileOrder() throws {
    let document = try parse(#"{"a": {"x": 1, "x": 2}, "a": {"y": 1, "y": 2}}"#, as: JSONFormat())
    #expect(document.diagnostics.map(\.error.column) == [16, 25, 39])
  }

  @Test func nullUnsetsAMemberAndIsDroppedFromArraysWithAWarning() throws {
    let document = try parse(#"{"a": null, "b": [1, null, 2], "c": 1, "c": null}"#, as: JSONFormat())
    let root = try #require(document.root.table)
    #expect(root.keys == ["b"])
    #expect(
      root["b"]?.kind
        == .array([SettingValue(.integer(1), origin: .runtime), SettingValue(.integer(2), origin: .runtime)]))
    #expect(document.diagnostics.map(\.error.code) == [.invalidValue, .duplicateKey])
    #expect(document.diagnostics.first?.error.column == 22)
    #expect(try jsonValue("null") == nil)
    #expect(try jsonValue(" 7 ")?.kind == .integer(7))
  }

  @Test func nestingAtTheLimitIsAcceptedAndOneDeeperIsNot() throws {
    let limit = 40
    let ok = String(repeating: "[", count: limit) + String(repeating: "]", count: limit)
    #expect(throws: Never.self) { try jsonValue(ok, maxDepth: limit) }
    let deep = String(repeating: "[", count: limit + 1) + String(repeating: "]", count: limit + 1)
    let error = #expect(throws: StrataError.self) { try jsonValue(deep, maxDepth: limit) }
    #expect(error?.code == .nestingTooDeep)
    #expect(error?.column == limit + 1)
    #expect(error?.message == "arrays and objects are nested more than 40 deep")

    // Objects count too, and an empty container is still a level.
    let objects =
      String(repeating: #"{"a":"#, count: limit - 1) + "{}" + String(repeating: "}", count: limit - 1)
    #expect(throws: Never.self) { try jsonValue(objects, maxDepth: limit) }
    let options = ParseOptions(maxDepth: limit - 1)
    let tooDeep = #expect(throws: StrataError.self) {
      try JSONFormat().parse(Array(objects.utf8), path: "t", options: options)
    }
    #expect(tooDeep?.code == .nestingTooDeep)
  }

  @Test func hundredThousandOpeningBracketsFailWithoutOverflowingTheStack() {
    for opener in ["[", #"{"a":"#] {
      let text = "{\"a\": " + String(repeating: opener, count: 100_000)
      let error = parseError(text, as: JSONFormat())
      #expect(error?.code == .nestingTooDeep)
      #expect(error?.line == 1)
    }
  }
}

@Suite struct JSONErrorTests {
  static let cases: [(text: String, code: StrataError.Code, message: String, position: String)] = [
    (#"{"a": 1 x}"#, .syntax, "expected ',' or '}' after an object member, found 'x'", "1:9"),
    (#"{"a": [1 2]}"#, .syntax, "expected ',' or ']' after an array element, found '2'", "1:10"),
    ("{\n  \"ab\": \"value", .unexpectedEnd, "unterminated string (started at line 2, column 9)", "2:15"),
    (
      "{\n  \"ab\": \"val\nue\"}", .syntax,
      "unterminated string (started at line 2, column 9); a line break in a string must be written as \\n",
      "2:13"
    ),
    (#"{"a": }"#, .syntax, "expected a value, found '}'", "1:7"),
    (#"{"a":"#, .unexpectedEnd, "expected a value, found end of file", "1:6"),
    (#"{"a": [1,"#, .unexpectedEnd, "expected a value, found end of file", "1:10"),
    (#"{"a": 1"#, .unexpectedEnd, "expected ',' or '}' after an object member, found end of file", "1:8"),
    ("", .unexpectedEnd, "empty file; expected a JSON object", "1:1"),
    (" \n ", .unexpectedEnd, "empty file; expected a JSON object", "2:2"),
    ("[1, 2]", .syntax, "a configuration file must hold an object at the top, found an array", "1:1"),
    ("\n \"x\"", .syntax, "a configuration file must hold an object at the top, found a string", "2:2"),
    (
      #"{"a": 1,}"#, .syntax,
      "expected a string key after ',', found '}' (JSON does not allow a trailing comma)", "1:9"
    ),
    ("{a: 1}", .syntax, "expected a string key or '}' after '{', found 'a'", "1:2"),
    (#"{"a" 1}"#, .syntax, #"expected ':' after the key "a", found '1'"#, "1:6"),
    (#"{"a": 01}"#, .invalidNumber, "a number must not start with a leading zero", "1:7"),
    (#"{"a": -}"#, .invalidNumber, "expected a digit after '-', found '}'", "1:8"),
    (#"{"a": 1.}"#, .invalidNumber, "expected a digit after '.', found '}'", "1:9"),
    (#"{"a": 1e}"#, .invalidNumber, "expected a digit in the exponent, found '}'", "1:9"),
    (#"{"a": .5}"#, .syntax, "expected a value, found '.'", "1:7"),
    (#"{"a": +1}"#, .syntax, "expected a value, found '+'", "1:7"),
    (#"{"a": NaN}"#, .syntax, "expected a value, found 'NaN'", "1:7"),
    (#"{"a": 0x1F}"#, .syntax, "expected ',' or '}' after an object member, found an unquoted word", "1:8"),
    (#"{"a": 1e400}"#, .invalidNumber, "number 1e400 is too large for a double", "1:7"),
    (#"{"a": tru}"#, .syntax, "expected a value, found 'tru'", "1:7"),
    // A value that lost its quotes may be a secret: messages do not repeat it.
    (#"{"password": hunter2hunter}"#, .syntax, "expected a value, found an unquoted word", "1:14"),
    (#"{"a": 1} x"#, .syntax, "expected end of file after the top-level value, found 'x'", "1:10"),
    (
      #"{"a": "\x"}"#, .invalidEscape,
      #"invalid escape '\x' in a string; expected one of \" \\ \/ \b \f \n \r \t \uXXXX"#, "1:8"
    ),
    (
      #"{"a": "\uD800"}"#, .invalidEscape,
      #"lone high surrogate \uD800; it must be followed by a low surrogate (\uDC00-\uDFFF)"#, "1:8"
    ),
    (
      #"{"a": "x\uDC00"}"#, .invalidEscape,
      #"lone low surrogate \uDC00; it must follow a high surrogate (\uD800-\uDBFF)"#, "1:9"
    ),
    (
      #"{"a": "\uD800\u0041"}"#, .invalidEscape,
      #"lone high surrogate \uD800; it must be followed by a low surrogate (\uDC00-\uDFFF)"#, "1:8"
    ),
    (#"{"a": "\u12"}"#, .invalidEscape, #"a \u escape needs four hexadecimal digits"#, "1:8"),
    (
      "{\"a\": \"x\ty\"}", .syntax, "control character U+0009 in a string must be escaped (as \\u0009)", "1:9"
    ),
  ]

  @Test(arguments: cases.indices)
  func reportsWhatWasExpectedAndFoundWhereItHappened(_ index: Int) throws {
    let (text, code, message, expected) = Self.cases[index]
    let error = try #require(parseError(text, as: JSONFormat(), path: "e.json"), "\(text) parsed")
    #expect(error.code == code, "\(text)")
    #expect(error.message == message, "\(text)")
    #expect("\(error.line):\(error.column)" == expected, "\(text)")
    #expect(error.path == "e.json")
  }

  @Test(
    arguments: [
      ([0xC3, 0x28], 8),  // lead byte without a continuation
      ([0xC0, 0x80], 8),  // overlong
      ([0xED, 0xA0, 0x80], 8),  // UTF-8 encoded surrogate
      ([0xF5, 0x80, 0x80, 0x80], 8),  // above U+10FFFF
      ([0x61, 0x80], 9),  // lone continuation byte
      ([0x61, 0xE2, 0x82], 9),  // truncated by the closing quote
    ] as [([UInt8], Int)])
  func invalidUTF8InAStringIsReportedAtTheBadByte(_ bad: [UInt8], column: Int) {
    for escaped in [false, true] {
      let prefix = Array((escaped ? #"{"a": "\n"# : #"{"a": ""#).utf8)
      let bytes = prefix + bad + Array(#""}"#.utf8)
      let error = #expect(throws: StrataError.self) {
        try JSONFormat().parse(bytes, path: "t", options: ParseOptions())
      }
      #expect(error?.code == .invalidUTF8)
      #expect(error?.column == column + (escaped ? 2 : 0))
    }
  }

  @Test func invalidUTF8OutsideAStringIsASyntaxError() {
    let error = #expect(throws: StrataError.self) {
      try JSONFormat().parse(
        Array(#"{"a": "#.utf8) + [0xFF] + Array("}".utf8), path: "t", options: ParseOptions())
    }
    #expect(error?.message == "expected a value, found byte 0xFF")
  }
}

@Suite struct JSONScalarTests {
  @Test(arguments: [
    ("9223372036854775807", SettingValue.Kind.integer(Int.max)),
    ("-9223372036854775808", .integer(Int.min)),
    ("9223372036854775808", .double(9_223_372_036_854_775_808.0)),
    ("-9223372036854775809", .double(-9_223_372_036_854_775_809.0)),
    ("123456789012345678901234567890", .double(1.2345678901234568e29)),
    ("0", .integer(0)),
    ("-0", .integer(0)),
    ("1.5", .double(1.5)),
    ("1E2", .double(100)),
    ("1e+2", .double(100)),
    ("25e-1", .double(2.5)),
    ("0.1", .double(0.1)),
    ("1e-400", .double(0)),
    ("1.7976931348623157e308", .double(.greatestFiniteMagnitude)),
    ("5e-324", .double(.leastNonzeroMagnitude)),
    ("3.14159265358979323846264338327950288", .double(.pi)),
    ("0.000000000000000000000000000001", .double(1e-30)),
  ])
  func numbers(_ text: String, _ expected: SettingValue.Kind) throws {
    #expect(try jsonValue(text)?.kind == expected)
  }

  @Test func negativeZeroDoubleKeepsItsSign() throws {
    guard case .double(let value)? = try jsonValue("-0.0")?.kind else { Issue.record("not a double"); return }
    #expect(value == 0 && value.sign == .minus)
  }

  @Test func overflowToInfinityIsAnError() {
    for text in ["1e400", "-1e400", "1.8e308", "123456789e999999999999"] {
      let error = #expect(throws: StrataError.self) { try jsonValue(text) }
      #expect(error?.code == .invalidNumber, "\(text)")
    }
  }

  /// The fast path must round exactly as the standard library does.
  @Test func decimalsMatchTheStandardLibrary() async throws {
    // 40,000 parses in a debug build: on a thread of its own, not the cooperative pool's.
    try await checkedOnOwnThread { checks in
      var rng = SplitMix64(seed: 7)
      for _ in 0..<20_000 {
        let digits = String(rng.next() % 1_000_000_000_000_000)
        let exponent = Int(rng.next() % 60) - 30
        let point = Int(rng.next() % UInt64(digits.count))
        let text = digits.prefix(point + 1) + "." + digits.dropFirst(point + 1) + "0e\(exponent)"
        checks.expect(try jsonValue(String(text))?.kind == .double(Double(String(text))!), "\(text)")
      }
      for _ in 0..<20_000 {
        let value = Double(bitPattern: rng.next() & 0x7FEF_FFFF_FFFF_FFFF)
        checks.expect(try jsonValue(value.description)?.kind == .double(value), "\(value)")
      }
    }
  }

  @Test func escapesAndSurrogatePairs() throws {
    let text = #""\"\\\/\b\f\n\r\t\u0041\u00e9\u20AC\uD834\uDD1E\u0000""#
    #expect(try jsonValue(text)?.kind == .string("\"\\/\u{8}\u{C}\n\r\tAé€𝄞\u{0}"))
    #expect(try jsonValue(#""plain ascii""#)?.kind == .string("plain ascii"))
    #expect(try jsonValue(#""raw é € 𝄞 and \n""#)?.kind == .string("raw é € 𝄞 and \n"))
    #expect(try jsonValue(#""""#)?.kind == .string(""))
  }

  @Test func literals() throws {
    #expect(try jsonValue("true")?.kind == .bool(true))
    #expect(try jsonValue("false")?.kind == .bool(false))
    #expect((try? jsonValue("True")) == nil)
  }
}

/// A small deterministic generator, so failures reproduce.
struct SplitMix64: RandomNumberGenerator {
  var state: UInt64
  init(seed: UInt64) { state = seed }
  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }
}

@Suite struct JSONLongNumberTests {
  @Test func aHugeNumberIsShortenedInTheMessage() {
    let digits = String(repeating: "9", count: 500)
    let error = #expect(throws: StrataError.self) { try jsonValue("1e" + digits) }
    #expect(error?.message == "number 1e" + String(repeating: "9", count: 38) + "… is too large for a double")
  }
}
