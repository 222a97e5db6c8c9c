import Foundation
import StrataPlatform
import Testing

/// Children start with no blocked and no ignored signals, whatever the spawning thread had.
@Suite struct SpawnTests {
  @Test(.linuxOnly("/proc/self/status")) func aChildGetsACleanSignalMaskAndDefaultDispositions() async throws
  {
    // Block SIGTERM on the spawning thread, as a test runner's threads may (`Spawn.start` spawns from
    // the thread that calls it: here a thread of its own, whose mask this may change).
    let status = try await withTemporaryDirectory { dir in
      let pid = try await onOwnThread { () throws -> pid_t in
        var blocked = sigset_t()
        sigemptyset(&blocked)
        sigaddset(&blocked, SIGTERM)
        pthread_sigmask(SIG_BLOCK, &blocked, nil)
        return try Spawn.start(
          "/bin/sh", ["-c", "grep -E '^Sig(Blk|Ign):' /proc/self/status > \(dir)/status"], output: nil,
          errors: nil)
      }
      #expect(await ProcessExit(pid).reap(killingAfter: 60).exitCode == 0)
      return try String(contentsOfFile: dir + "/status", encoding: .utf8)
    }
    #expect(status.contains("SigBlk:\t0000000000000000"), "\(status)")
    // Signals 1…31 (glibc keeps 32 and 33 for itself).
    let ignored = status.split(separator: "\n").first { $0.hasPrefix("SigIgn:") }.flatMap {
      UInt64($0.dropFirst("SigIgn:".count).trimmingCharacters(in: .whitespaces), radix: 16)
    }
    #expect(ignored.map { $0 & 0x7FFF_FFFF } == 0, "\(status)")
  }

  @Test func aRunThatOverstaysIsKilledAndReaped() async throws {
    let result = try await Spawn.run("/bin/sleep", ["600"], within: 0.2)
    #expect(result.status == 128 + SIGKILL)
  }

  @Test func aChildProcessIsKilledAndReapedWhenReleased() async throws {
    var pid: pid_t = 0
    do {
      let child = try ChildProcess("/bin/sleep", ["600"])
      pid = child.pid
      #expect(kill(pid, 0) == 0)
    }
    // Killed at once and reaped on a thread of its own (a deinit cannot wait): the pid soon no longer
    // names a process (not even a zombie) of ours.
    #expect(await waitUntil(within: 60) { kill(pid, 0) != 0 && errno == ESRCH })
  }
}

/// A child's end is awaited with a deadline, and the child is killed and reaped after it.
@Suite struct ProcessExitTests {
  @Test func aRunningChildIsReportedRunningThenKilledAndReaped() async throws {
    let pid = try Spawn.start("/bin/sleep", ["600"], output: nil, errors: nil)
    let exit = ProcessExit(pid)
    #expect(await exit.ending(within: 0.05) == nil)
    #expect(kill(pid, 0) == 0)  // still running, still ours
    #expect(await exit.reap(killingAfter: 0).signal == SIGKILL)
    #expect(exit.isReaped)
    #expect(kill(pid, 0) != 0 && errno == ESRCH)
  }

  @Test func anExitCodeIsReportedAsAShellWould() async throws {
    let pid = try Spawn.start("/bin/sh", ["-c", "exit 3"], output: nil, errors: nil)
    let status = try #require(await ProcessExit(pid).ending(within: 60))
    #expect(status.exitCode == 3 && status.signal == nil && status.shellStatus == 3)
  }
}
