import Foundation
import Testing

@testable import Strata

/// An override that expires in a real service process: `strata-stress-child control DIR` serves its
/// store's socket with a clock the test moves (seconds written to `DIR/advance`), so expiry is awaited
/// as an event, never slept for.
@Suite(.linuxOnly("the stress child's control mode")) struct OverrideExpiryProcessTests {
  @Test func anOverrideExpiresInTheServiceWithAnEventAndTheFileValueComesBack() async throws {
    try await withTemporaryDirectory { dir in
      try write("[log]\nlevel = error\n", to: dir + "/app.ini")
      let child = try ChildProcess(stressChildPath, ["control", dir], in: dir)
      #expect(await child.line(startingWith: "ready error", within: 120) != nil, "\(child.transcript)")
      func dump(_ arguments: [String] = []) async throws -> DumpRun {
        try await runConfigDump(["--socket", dir + "/control.sock"] + arguments, in: dir)
      }
      /// Whether the child printed `count` lines starting with `prefix`, within a minute. The transcript
      /// is searched, not read line by line: the socket's thread may print an event before `advanced`.
      func printed(_ prefix: String, count: Int = 1) async -> Bool {
        await waitUntil(within: 60) {
          child.outputSoFar.split(separator: "\n").count { $0.hasPrefix(prefix) } >= count
        }
      }
      var advances = 0
      func advance(_ seconds: Int) async throws {
        try write("\(seconds)\n", to: dir + "/advance.tmp")
        #expect(rename(dir + "/advance.tmp", dir + "/advance") == 0)
        advances += 1
        #expect(await printed("advanced", count: advances), "\(child.transcript)")
      }

      let set = try await dump(["--set", "log.level=debug", "--for", "15m"])
      #expect(set.status == 0, "\(set)")
      try await advance(600)
      let status = try await dump()
      #expect(status.output.contains("log.level  debug  runtime"), "\(status)")
      #expect(status.output.contains("  log.level = debug  (5m 0s left)"), "\(status)")
      #expect(!child.transcript.contains("expired"))

      try await advance(300)
      #expect(await printed("event override of log.level expired"), "\(child.transcript)")
      let after = try await dump()
      #expect(after.output.contains("log.level  error  \(dir)/app.ini:2:9"), "\(after)")
      #expect(!after.output.contains("Overrides"), "\(after)")
      // The reloaded event of the value that applies again came before the expiry's.
      let events = child.transcript.split(separator: "\n").filter { $0.hasPrefix("event ") }
      #expect(events.suffix(2).first?.hasPrefix("event reloaded generation") == true, "\(events)")
    }
  }
}
