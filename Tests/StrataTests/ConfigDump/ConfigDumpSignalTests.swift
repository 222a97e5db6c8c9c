import Foundation
import StrataPlatform
import Testing

/// `config-dump --watch` as a long-running process: a hang-up while it starts is a reload request, and
/// it ends when its reader goes away.
@Suite struct ConfigDumpSignalTests {
  /// Whether the process has a handler for `signal` (`SigCgt` in /proc/PID/status).
  func catches(_ signal: Int32, pid: Int32) -> Bool {
    guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
      let line = status.split(separator: "\n").first(where: { $0.hasPrefix("SigCgt:") }),
      let mask = UInt64(line.dropFirst("SigCgt:".count).trimmingCharacters(in: .whitespaces), radix: 16)
    else { return false }
    return mask & (1 << UInt64(signal - 1)) != 0
  }

  @Test(.linuxOnly("/proc/PID/status")) func aHangupWhileStartingIsQueuedNotFatal() async throws {
    try await withTemporaryDirectory { dir in
      // A dump larger than a pipe's buffer: unread, it holds the process in its start-up, before the
      // watch begins, for as long as the test wants.
      var text = ""
      for section in 0..<400 {
        text += "[s\(section)]\n"
        for key in 0..<50 { text += "k\(key) = value \(section) \(key)\n" }
      }
      try write(text, to: dir + "/app.ini")
      let watch = try ChildProcess(configDumpPath, ["--watch", dir + "/app.ini"])
      let pid = watch.pid
      #expect(
        await waitUntil(within: 120) { catches(SIGHUP, pid: pid) || kill(pid, 0) != 0 },
        "no handler before the watch began")
      watch.send(SIGHUP)
      #expect(await waitUntil(within: 120) { watch.outputSoFar.contains("s399.k49") })
      #expect(kill(pid, 0) == 0, "the hang-up ended the process")
      watch.send(SIGHUP)  // once watching, a hang-up reloads and the watch goes on
      try write(text + "[late]\nk = 1\n", to: dir + "/app.ini")
      #expect(await waitUntil(within: 120) { watch.outputSoFar.contains(#""key": "late.k""#) })
      #expect(kill(pid, 0) == 0)
    }
  }

  @Test func theWatchEndsWhenItsReaderGoesAway() async throws {
    try await withTemporaryDirectory { dir in
      try write("[a]\nb = 1\n", to: dir + "/app.ini")
      let watch = try ChildProcess(configDumpPath, ["--watch", dir + "/app.ini"])
      #expect(await waitUntil(within: 120) { watch.outputSoFar.contains("a.b") })
      watch.closeOutput()  // as `head -1` does after its line
      // Nothing changes, so nothing is written: the process must notice the closed pipe by itself.
      #expect(
        await watch.ending(within: 120) == .exited(0), "config-dump --watch kept running with no reader")
    }
  }
}
