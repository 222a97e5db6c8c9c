import Foundation
import Testing

@testable import Strata

@Suite struct WatchLinesTests {
  func snapshot(_ generation: Int, _ pairs: [(String, SettingValue.Kind)], secret: Bool = false) -> Snapshot {
    var document = Document(path: "/etc/a.ini", root: fileTree("/etc/a.ini", pairs))
    document.isSecret = secret
    return Snapshot(generation: generation, sources: [Snapshot.Source(scope: .system, document: document)])
  }

  @Test func oneLinePerChangedKey() throws {
    let old = snapshot(
      1, [("server.port", .integer(8080)), ("server.host", .string("a")), ("gone", .bool(true))])
    let new = snapshot(
      2, [("server.port", .integer(9090)), ("server.host", .string("a")), ("list", .array([]))])
    let lines = WatchLines.changes(from: old, to: new)
    #expect(
      lines == [
        #"{"generation": 2, "key": "server.port", "old": 8080, "new": 9090, "origin": "/etc/a.ini:2:8"}"#,
        #"{"generation": 2, "key": "list", "old": null, "new": [], "origin": "/etc/a.ini:4:8"}"#,
        #"{"generation": 2, "key": "gone", "old": true, "new": null, "origin": "/etc/a.ini:4:8"}"#,
      ])
    for line in lines { #expect(try JSONSerialization.jsonObject(with: Data(line.utf8)) is [String: Any]) }
  }

  @Test func secretsAreRedacted() {
    let lines = WatchLines.changes(
      from: snapshot(1, [("token", .string("old-secret"))]),
      to: snapshot(2, [("token", .string("new-secret"))]),
      secretKeys: ["token"])
    #expect(
      lines == [
        #"{"generation": 2, "key": "token", "old": "<redacted>", "new": "<redacted>", "origin": "/etc/a.ini:2:8"}"#
      ])
    let fromSecretSource = WatchLines.changes(
      from: snapshot(1, [("k", .string("a"))], secret: true),
      to: snapshot(2, [("k", .string("b"))], secret: true))
    #expect(!fromSecretSource.joined().contains("\"a\"") && !fromSecretSource.joined().contains("\"b\""))
  }

  @Test func restartRequiredChangesAreMarked() {
    let lines = WatchLines.changes(
      from: snapshot(1, [("port", .integer(1))]), to: snapshot(2, [("port", .integer(2))]),
      restartRequiredKeys: ["port"])
    #expect(
      lines == [
        #"{"generation": 2, "key": "port", "old": 1, "new": 2, "origin": "/etc/a.ini:2:8", "pendingRestart": true}"#
      ])
  }

  @Test func errorsCarryTheirPosition() {
    let line = WatchLines.error(StrataError(.syntax, "expected ']'", path: "/etc/a.ini", line: 3, column: 8))
    #expect(line == #"{"error": "expected ']'", "path": "/etc/a.ini", "line": 3, "column": 8}"#)
  }
}
