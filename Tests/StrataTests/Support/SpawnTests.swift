import Foundation
import Glibc
import Testing

/// Children start with no blocked and no ignored signals, whatever the spawning thread had.
@Suite struct SpawnTests {
  @Test func aChildGetsACleanSignalMaskAndDefaultDispositions() throws {
    // Block SIGTERM and ignore SIGPIPE on this thread, as a test runner's threads may.
    var blocked = sigset_t()
    sigemptyset(&blocked)
    sigaddset(&blocked, SIGTERM)
    var previous = sigset_t()
    pthread_sigmask(SIG_BLOCK, &blocked, &previous)
    defer { pthread_sigmask(SIG_SETMASK, &previous, nil) }
    let status = try Spawn.run("/bin/sh", ["-c", "grep -E '^Sig(Blk|Ign):' /proc/self/status"]).output
    #expect(status.contains("SigBlk:\t0000000000000000"), "\(status)")
    // Signals 1…31 (glibc keeps 32 and 33 for itself).
    let ignored = status.split(separator: "\n").first { $0.hasPrefix("SigIgn:") }.flatMap {
      UInt64($0.dropFirst("SigIgn:".count).trimmingCharacters(in: .whitespaces), radix: 16)
    }
    #expect(ignored.map { $0 & 0x7FFF_FFFF } == 0, "\(status)")
  }

  @Test func aRunThatOverstaysIsKilledAndReaped() throws {
    let result = try Spawn.run("/bin/sleep", ["600"], within: 0.2)
    #expect(result.status == 128 + SIGKILL)
  }

  @Test func aChildProcessIsKilledAndReapedWhenReleased() async throws {
    var pid: pid_t = 0
    do {
      let child = try ChildProcess("/bin/sleep", ["600"])
      pid = child.pid
      #expect(kill(pid, 0) == 0)
    }
    // Reaped: the pid no longer names a process (not even a zombie) of ours.
    #expect(kill(pid, 0) != 0 && errno == ESRCH)
  }
}
