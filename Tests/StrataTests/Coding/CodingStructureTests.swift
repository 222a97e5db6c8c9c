import Foundation
import Testing

@testable import Strata

enum LogLevel: String, Codable, CaseIterable, Equatable {
  case debug, info, warning
}

/// Not `CaseIterable`, so messages cannot list its cases.
enum Mode: String, Codable, Equatable {
  case fast, slow
}

enum Priority: Int, Codable, CaseIterable, Equatable {
  case low = 1, high = 9
}

struct TLSSettings: Codable, Equatable {
  var port: UInt16
  var certPath: String?
  var ciphers: [String]
}

struct ServerConfig: Codable, Equatable {
  var host: String
  var port: Int
  var timeout: Duration
  var level: LogLevel
  var tls: TLSSettings?
  var debug: Bool?
}

struct Upstream: Codable, Equatable {
  var url: URL
  var weight: Int
}

@Suite("Coding: structures")
struct CodingStructureTests {
  /// A server table as an INI file gives it: strings only, each at its own line.
  static func iniServer(tls: Bool = true) -> SettingValue {
    var entries: [(String, SettingValue)] = [
      ("host", text("0.0.0.0", .file(path: "/etc/app/app.ini", line: 2, column: 8))),
      ("port", text("8443", .file(path: "/etc/app/app.ini", line: 3, column: 8))),
      ("timeout", text("1m30s", .file(path: "/etc/app/app.ini", line: 4, column: 11))),
      ("level", text("debug", .file(path: "/etc/app/app.ini", line: 5, column: 9))),
    ]
    if tls {
      entries.append(
        (
          "tls",
          table(
            [
              ("port", text("443", .file(path: "/etc/app/app.ini", line: 8, column: 8))),
              ("ciphers", text("a, b ,c", .file(path: "/etc/app/app.ini", line: 9, column: 11))),
            ], .file(path: "/etc/app/app.ini", line: 7, column: 1))
        ))
    }
    return table(entries, .file(path: "/etc/app/app.ini", line: 1, column: 1))
  }

  @Test func nestedStructFromStringsOnly() throws {
    let server = try decoded(ServerConfig.self, Self.iniServer(), key: "server")
    #expect(
      server
        == ServerConfig(
          host: "0.0.0.0", port: 8443, timeout: .seconds(90), level: .debug,
          tls: TLSSettings(port: 443, certPath: nil, ciphers: ["a", "b", "c"]), debug: nil))
  }

  @Test func missingOptionalsAreNil() throws {
    let server = try decoded(ServerConfig.self, Self.iniServer(tls: false), key: "server")
    #expect(server.tls == nil)
    #expect(server.debug == nil)
  }

  @Test func nestedFailureNamesTheFullKeyAndTheNodesPosition() {
    var root = Self.iniServer().table!
    var tls = root["tls"]!.table!
    tls["port"] = text("70000", .file(path: "/etc/app/app.ini", line: 8, column: 8))
    root["tls"] = node(.table(tls))
    expectFailure(
      ServerConfig.self, node(.table(root)), key: "server", code: .invalidValue,
      message: "expected UInt16 for server.tls.port, found \"70000\" (out of range)",
      at: .file(path: "/etc/app/app.ini", line: 8, column: 8))
  }

  @Test func missingRequiredKeyIsLocatedAtItsTable() {
    var root = Self.iniServer().table!
    root["port"] = nil
    expectFailure(
      ServerConfig.self, node(.table(root), .file(path: "/etc/app/app.ini", line: 1, column: 1)),
      key: "server", code: .notFound, message: "expected Int for server.port, found nothing",
      at: .file(path: "/etc/app/app.ini", line: 1, column: 1))
  }

  @Test func structFromAScalarNamesTheStruct() {
    expectFailure(
      ServerConfig.self, node(.integer(5)), key: "server",
      message: "expected ServerConfig for server, found 5")
    expectFailure(
      TLSSettings.self, text("tls"), key: "server.tls",
      message: "expected TLSSettings for server.tls, found \"tls\"")
  }

  @Test func arraysOfStructs() throws {
    let upstreams = node(
      .array([
        table([("url", text("http://a:80")), ("weight", node(.integer(1)))]),
        table([("url", text("http://b:80")), ("weight", text("2"))]),
      ]))
    let decodedValue = try decoded([Upstream].self, upstreams, key: "upstreams")
    #expect(decodedValue.map(\.weight) == [1, 2])
    #expect(decodedValue[1].url.host() == "b")

    let bad = node(
      .array([
        table([("url", text("http://a:80")), ("weight", node(.integer(1)))]),
        table([
          ("url", text("http://b:80")), ("weight", text("heavy", .file(path: "x.ini", line: 4, column: 2))),
        ]),
      ]))
    expectFailure(
      [Upstream].self, bad, key: "upstreams",
      message: "expected Int for upstreams[1].weight, found \"heavy\"",
      at: .file(path: "x.ini", line: 4, column: 2))
  }

  @Test func arraysFromCommaText() throws {
    #expect(try decoded([Int].self, text("1, 2,3 ")) == [1, 2, 3])
    #expect(try decoded([String].self, text("")) == [])
    #expect(try decoded([String].self, text("  ")) == [])
    #expect(try decoded([String].self, text("solo")) == ["solo"])
    #expect(try decoded(Set<String>.self, text("a, b, a")) == ["a", "b"])
    #expect(try decoded([Duration].self, text("1s, 250ms")) == [.seconds(1), .milliseconds(250)])
    #expect(try decoded([Int].self, node(.array([node(.integer(4)), text("5")]))) == [4, 5])
    expectFailure([Int].self, text("1,,2"), message: "expected Int for a.b[1], found \"\"")
    expectFailure([Int].self, text("1, x"), message: "expected Int for a.b[1], found \"x\"")
    expectFailure([String].self, node(.integer(3)), message: "expected [String] for a.b, found 3")
    expectFailure([String].self, table([]), message: "expected [String] for a.b, found a table")
  }

  @Test func dictionaries() throws {
    let limits = table([("a", node(.integer(1))), ("b", text("2"))])
    #expect(try decoded([String: Int].self, limits, key: "limits") == ["a": 1, "b": 2])
    #expect(try decoded([String: Int].self, table([])) == [:])
    expectFailure(
      [String: Int].self, table([("a", node(.integer(1))), ("b", text("x"))]), key: "limits",
      message: "expected Int for limits.b, found \"x\"")
    expectFailure(
      [String: Int].self, node(.array([])), message: "expected [String: Int] for a.b, found an array")
    let nested = table([("eu", table([("x", text("1, 2"))]))])
    #expect(try decoded([String: [String: [Int]]].self, nested) == ["eu": ["x": [1, 2]]])
  }

  @Test func rawValueEnums() throws {
    #expect(try decoded(LogLevel.self, text("debug")) == .debug)
    #expect(try decoded(LogLevel.self, text("warning")) == .warning)
    #expect(try decoded(Priority.self, text("9")) == .high)
    #expect(try decoded(Priority.self, node(.integer(1))) == .low)
    #expect(try decoded([LogLevel].self, text("info, debug")) == [.info, .debug])
    expectFailure(
      LogLevel.self, text("verbose"), key: "log.level", code: .invalidValue,
      message: "expected LogLevel for log.level, found \"verbose\" (one of: debug, info, warning)")
    expectFailure(
      LogLevel.self, text("Debug"), key: "log.level", code: .invalidValue,
      message: "expected LogLevel for log.level, found \"Debug\" (one of: debug, info, warning)")
    expectFailure(
      Mode.self, text("medium"), key: "mode", code: .invalidValue,
      message: "expected Mode for mode, found \"medium\"")
    expectFailure(
      Priority.self, text("5"), code: .invalidValue,
      message: "expected Priority for a.b, found \"5\" (one of: 1, 9)")
    expectFailure(Priority.self, text("high"), message: "expected Priority for a.b, found \"high\"")
    expectFailure(LogLevel.self, table([]), message: "expected LogLevel for a.b, found a table")
  }

  @Test func enumInsideAStructIsLocatedAtItsNode() {
    var root = Self.iniServer().table!
    root["level"] = text("loud", .environment(variable: "APP_SERVER_LEVEL"))
    expectFailure(
      ServerConfig.self, node(.table(root)), key: "server", code: .invalidValue,
      message: "expected LogLevel for server.level, found \"loud\" (one of: debug, info, warning)",
      at: .environment(variable: "APP_SERVER_LEVEL"))
  }

  @Test func optionalsAtTheTop() throws {
    #expect(try decoded(Int?.self, text("5")) == 5)
    expectFailure(Int?.self, text("x"), message: "expected Int for a.b, found \"x\"")
  }

  @Test func emptyKeyNamesTheRoot() {
    expectFailure(Int.self, text("x"), key: "", message: "expected Int for the root value, found \"x\"")
  }

  @Test func blobStyleJSONTextDecodesAsAStruct() throws {
    let origin = Origin.file(path: "/etc/app/old.ini", line: 3, column: 8)
    let blob = text(
      #"{"host": "h", "port": 81, "timeout": "250ms", "level": "info", "tls": {"port": 443, "ciphers": ["x"]}}"#,
      origin)
    let server = try decoded(ServerConfig.self, blob, key: "server")
    #expect(
      server
        == ServerConfig(
          host: "h", port: 81, timeout: .milliseconds(250), level: .info,
          tls: TLSSettings(port: 443, certPath: nil, ciphers: ["x"]), debug: nil))
    #expect(try decoded([String: Int].self, text(#" {"a": 1} "#)) == ["a": 1])

    // Nodes inside the text take the text's origin: positions inside it would not match the file.
    let bad = text(#"{"host": "h", "port": "x", "timeout": "1s", "level": "info"}"#, origin)
    expectFailure(
      ServerConfig.self, bad, key: "server", message: "expected Int for server.port, found \"x\"",
      at: origin)
    // Text that starts like JSON but is not.
    guard let error = decodingError(ServerConfig.self, text(#"{"host": "#, origin), key: "server") else {
      return
    }
    #expect(error.code == .typeMismatch)
    #expect(
      error.message.hasPrefix(
        #"expected ServerConfig for server, found "{\"host\": " (not a JSON object: "#))
    #expect(error.line == 3 && error.column == 8)
  }
}
