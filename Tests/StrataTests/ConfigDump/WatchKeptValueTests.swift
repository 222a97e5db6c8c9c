import Foundation
import StrataPlatform
import Testing

/// `config-dump --watch --schema` shows what the running program has: a live edit the program rejects
/// keeps the last good value, and a "kept" line says so.
@Suite struct WatchKeptValueTests {
  @Test func aRejectedEditKeepsTheRunningValueAndSaysSo() async throws {
    try await withTemporaryDirectory { dir in
      let ini = dir + "/etc/demo/demo.ini"
      try write("[server]\nmaxConnections = 4096\nadminToken = tok-1\n", to: ini)
      let watch = try ChildProcess(
        configDumpPath,
        [
          "--root", dir, "--app", "demo", "--schema", repositoryRoot + "/Samples/demo/demo.schema.json",
          "--watch",
        ])
      #expect(await watch.line(startingWith: "server.maxConnections") != nil, "\(watch.transcript)")
      try replaceFile(ini, with: "[server]\nmaxConnections = 80a\nadminToken = tok-1\n")
      let error = await watch.line(startingWith: #"{"error""#, within: 120)
      #expect(
        error?.hasPrefix(
          #"{"error": "expected Int for server.maxConnections, found \"80a\"; the running value is kept""#)
          == true, "\(watch.transcript)")
      let kept = await watch.line(startingWith: #"{"generation""#, within: 120)
      #expect(
        kept?.contains(
          #""key": "server.maxConnections", "kept": 4096, "rejected": "80a", "origin": "/etc/demo/demo.ini:2:18"}"#
        )
          == true, "\(watch.transcript)")
      // A later edit of another key changes that key only: the kept value is not "changed" to the default.
      try replaceFile(ini, with: "[server]\nmaxConnections = 80a\nadminToken = tok-2\n")
      let next = await watch.line(startingWith: #"{"generation""#, within: 120)
      #expect(
        next?.contains(#""key": "server.adminToken", "old": "<redacted>", "new": "<redacted>""#) == true)
      // Fixed: the running value changes to the new one, and the error is gone.
      try replaceFile(ini, with: "[server]\nmaxConnections = 200\nadminToken = tok-2\n")
      let recovered = await watch.line(startingWith: #"{"recovered""#, within: 120)
      #expect(recovered != nil, "\(watch.transcript)")
      let changed = await watch.line(startingWith: #"{"generation""#, within: 120)
      #expect(changed?.contains(#""key": "server.maxConnections", "old": 4096, "new": 200"#) == true)
      watch.send(SIGTERM)
      #expect(await watch.finish(within: 60).ending == .exited(0))
      #expect(!watch.transcript.contains("1024"), "\(watch.transcript)")
      #expect(!watch.transcript.contains("tok-"))
      // One error line for the rejected edit, not a second one from the typed view.
      #expect(watch.transcript.components(separatedBy: #"{"error""#).count == 2, "\(watch.transcript)")
    }
  }

  @Test func aRejectedSecretIsKeptWithoutShowingIt() async throws {
    try await withTemporaryDirectory { dir in
      let schema = dir + "/schema.json"
      try write(
        #"{"type": "object", "properties": {"pin": {"type": "integer", "default": 1234, "x-strata-type": "Int", "x-strata-secret": true}}}"#,
        to: schema)
      let ini = dir + "/etc/demo/demo.ini"
      try write("pin = 4321\n", to: ini)
      let watch = try ChildProcess(
        configDumpPath, ["--root", dir, "--app", "demo", "--schema", schema, "--watch"])
      #expect(await watch.line(startingWith: "pin") != nil, "\(watch.transcript)")
      try replaceFile(ini, with: "pin = 99x\n")
      let kept = await watch.line(startingWith: #"{"generation""#, within: 120)
      #expect(
        kept?.contains(#""key": "pin", "kept": "<redacted>", "rejected": "<redacted>""#) == true,
        "\(watch.transcript)")
      watch.send(SIGTERM)
      #expect(await watch.finish(within: 60).ending == .exited(0))
      for secret in ["4321", "99x"] { #expect(!watch.transcript.contains(secret), "\(watch.transcript)") }
    }
  }
}
