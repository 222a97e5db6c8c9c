import Foundation
import StrataPlatform
import Testing

@testable import Strata

/// The shortest deadline of a wait, in seconds. A wait's deadline only catches a test that hangs: the
/// suite runs about 900 tests at once in one process, so a condition that holds within milliseconds
/// alone can wait a minute or more for a thread while two builds load the machine beside it (each of its
/// steps queues behind every other test's work). A wait that passes never takes longer for it.
let shortestWaitDeadline: Double = 300

/// Polls `body` until it returns true or the deadline (`seconds`, at least ``shortestWaitDeadline``)
/// passes.
func waitUntil(within seconds: Double = 10, _ body: () async throws -> Bool) async rethrows -> Bool {
  let deadline = Date().addingTimeInterval(max(seconds, shortestWaitDeadline))
  while Date() < deadline {
    if try await body() { return true }
    try? await Task.sleep(for: .milliseconds(20))
  }
  // Once more at the deadline: on a loaded machine the last sleep may have taken the rest of the time.
  return try await body()
}

/// `GET` on loopback, with curl (CI installs it).
func httpGet(_ url: String) async throws -> String {
  try await Spawn.run("/usr/bin/curl", ["-s", "--max-time", "5", url]).output
}

@Suite(.serialized) struct LiveProcessTests {
  @Test func configDumpWatchPrintsOneJSONLinePerChange() async throws {
    try await withTemporaryDirectory { dir in
      try write("[server]\nport = 1\n", to: dir + "/a.ini")
      // Killed and reaped when it goes out of scope, whatever happens below.
      let dump = try ChildProcess(configDumpPath, ["--watch", "a.ini"], in: dir)
      // A cold debug binary on a busy machine can take many seconds to print: wait for the dump itself.
      #expect(
        await waitUntil(within: 120) { dump.outputSoFar.contains("server.port  1\n") }, "\(dump.transcript)")
      try write("[server]\nport = 2\n", to: dir + "/a.ini")
      // A read right after the watch starts may catch the write half done: then an intermediate line
      // ("new": null) comes first and the generation is later. What must appear is the final value.
      let changed = await waitUntil(within: 120) {
        dump.outputSoFar.split(separator: "\n").contains {
          $0.hasPrefix(#"{"generation": "#) && $0.contains(#""key": "server.port""#)
            && $0.hasSuffix(#""new": "2", "origin": "a.ini:2:8"}"#)
        }
      }
      #expect(changed, "\(dump.transcript)")
      try write("[server\n", to: dir + "/a.ini")
      #expect(
        await waitUntil(within: 120) { dump.outputSoFar.contains(#"{"error": "#) }, "\(dump.transcript)")
      #expect(dump.transcript.contains(#""path": "a.ini", "line": 1, "column": 8}"#))
      dump.send(SIGINT)
      #expect(await dump.finish(within: 60).ending == .exited(0))
    }
  }

  @Test func configDumpWatchWithASchemaPrintsAnErrorLineForABadValue() async throws {
    try await withTemporaryDirectory { dir in
      try await shell("cp -r \(repositoryRoot)/Samples/demo \(dir)/root")
      let ini = dir + "/root/etc/demo/demo.ini"
      let dump = try ChildProcess(
        configDumpPath,
        ["--root", dir + "/root", "--app", "demo", "--schema", dir + "/root/demo.schema.json", "--watch"])
      #expect(
        await waitUntil(within: 120) { dump.outputSoFar.contains("server.port ") }, "\(dump.transcript)")
      try await shell("sed -i 's/^port = .*/port = 80a/' \(ini)")
      #expect(
        await waitUntil(within: 120) {
          dump.outputSoFar.split(separator: "\n").contains {
            $0.hasPrefix(
              #"{"error": "expected Int for server.port, found \"80a\"; the running value is kept""#)
              && $0.contains(#""path": "/etc/demo/demo.ini", "line": 6, "column": 8}"#)
          }
        }, "\(dump.transcript)")
      dump.send(SIGTERM)
      #expect(await dump.finish(within: 60).ending == .exited(0))
    }
  }

  @Test func hotReloadServerAdaptsToEditsWithoutARestart() async throws {
    guard FileManager.default.isExecutableFile(atPath: "/usr/bin/curl") else {
      Issue.record("curl is not installed (CI installs it)")
      return
    }
    try await withTemporaryDirectory { dir in
      let root = dir + "/root"
      try await shell("cp -r \(repositoryRoot)/Samples/HotReloadServer/root \(root)")
      let ini = root + "/etc/hotreload/hotreload.ini"
      try await shell("sed -i 's/^port = .*/port = 0/' \(ini)")
      let server = try startHotReloadServer(root: root, in: dir)
      let listening = try #require(await server.line(startingWith: "listening on ", within: 120))
      let base = String(listening.dropFirst("listening on ".count))
      #expect(try await httpGet(base + "/") == "Hello, world!\n")
      try await shell("sed -i 's/^name = .*/name = Strata/' \(ini)")
      #expect(try await waitUntil(within: 60) { try await httpGet(base + "/") == "Hello, Strata!\n" })
      let config = try await httpGet(base + "/config")
      #expect(config.contains(#""value": "Strata""#) && !config.contains("s3cret-admin-token"))
      try await shell("sed -i 's/^port = .*/port = 9999/' \(ini)")
      #expect(
        try await waitUntil(within: 60) {
          try await httpGet(base + "/status").contains("listen.port: running 0, 9999 after a restart")
        })
      #expect(try await httpGet(base + "/") == "Hello, Strata!\n")  // still serving on the old port
      // It ends on SIGTERM, cleanly; a hang would be killed at the deadline and fail here.
      server.send(SIGTERM)
      #expect(await server.finish(within: 60).ending == .exited(0))
    }
  }
}
