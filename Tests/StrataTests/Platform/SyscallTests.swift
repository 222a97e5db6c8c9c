import Foundation
import StrataPlatform
import Synchronization
import Testing

/// How many `SIGUSR2`s the test handler has seen (an atomic: async-signal-safe).
private let interruptions = Atomic<Int>(0)

@Suite(.serialized) struct SyscallTests {
  @Test func anInterruptedCallIsRetriedAndOtherFailuresAreNot() {
    var calls = 0
    let result = Syscall.retryingInterrupts { () -> Int in
      calls += 1
      if calls < 4 {
        errno = EINTR
        return -1
      }
      return 7
    }
    #expect(result == 7 && calls == 4)

    calls = 0
    let failed = Syscall.retryingInterrupts { () -> CInt in
      calls += 1
      errno = EBADF
      return -1
    }
    #expect(failed == -1 && calls == 1 && errno == EBADF)
  }

  @Test func writeAllFailsOnABadDescriptorAndWritesEverythingOtherwise() async throws {
    #expect(!Syscall.writeAll(-1, "lost"))
    #expect(errno == EBADF)
    var fds: [CInt] = [-1, -1]
    try #require(CloseOnExecPipe.open(&fds) == 0)
    defer { for fd in fds { Syscall.close(fd) } }
    #expect(Syscall.writeAll(fds[1], "héllo"))
    var bytes = [UInt8](repeating: 0, count: 16)
    let count = bytes.withUnsafeMutableBytes { Syscall.read(fds[0], $0.baseAddress, $0.count) }
    #expect(Array(bytes[..<max(count, 0)]) == Array("héllo".utf8))
  }

  @Test func bothEndsOfAPipeAreClosedOnExec() throws {
    var fds: [CInt] = [-1, -1]
    try #require(CloseOnExecPipe.open(&fds) == 0)
    defer { for fd in fds { Syscall.close(fd) } }
    for fd in fds { #expect(fcntl(fd, F_GETFD) & FD_CLOEXEC != 0) }
    let socket = LocalDatagramSocket.open()
    try #require(socket >= 0)
    defer { Syscall.close(socket) }
    #expect(fcntl(socket, F_GETFD) & FD_CLOEXEC != 0)
  }

  @Test func aSignalThatCannotBeCaughtIsRefused() {
    #expect(!SignalHandler.install(SIGKILL) { _ in })
  }

  /// A read blocked on an empty pipe, interrupted by a signal whose handler does not restart calls:
  /// the C call fails with `EINTR` (so the interruption is real), `Syscall.read` goes on reading.
  @Test(.linuxOnly("/proc/thread-self to see the reading thread blocked"))
  func aReadInterruptedByASignalIsRetried() async throws {
    #if os(Linux)
      try #require(
        SignalHandler.install(SIGUSR2, restartingCalls: false) { _ in interruptions.add(1, ordering: .relaxed)
        })
      let raw = try await interruptedRead { fd, buffer in read(fd, buffer, 1) }
      #expect(raw.result == -1 && raw.error == EINTR)
      let retried = try await interruptedRead { fd, buffer in Syscall.read(fd, buffer, 1) }
      #expect(retried.result == 1 && retried.byte == 42)
    #endif
  }

  #if os(Linux)
    /// Starts `read` on a thread of its own on an empty pipe, interrupts it once it is blocked, then
    /// writes one byte (42) once it blocks again or has returned; its result, `errno` and the byte.
    private func interruptedRead(
      _ read: @escaping @Sendable (CInt, UnsafeMutableRawPointer) -> Int
    ) async throws -> (result: Int, error: CInt, byte: UInt8) {
      var fds: [CInt] = [-1, -1]
      try #require(CloseOnExecPipe.open(&fds) == 0)
      defer { for fd in fds { Syscall.close(fd) } }
      let reader = fds[0]
      let state = ReaderState()
      let reading = OwnThread { () -> (Int, CInt, UInt8) in
        SignalHandler.unblock(SIGUSR2)  // the thread that made this one may block it
        state.thread.store(UInt(pthread_self()), ordering: .releasing)
        state.task.store(currentTaskID(), ordering: .releasing)
        var byte: UInt8 = 0
        let result = read(reader, &byte)
        let error = errno
        state.done.store(true, ordering: .releasing)
        return (result, error, byte)
      }
      #expect(await waitUntil(within: 60) { isBlocked(state.task.load(ordering: .acquiring)) })
      let before = interruptions.load(ordering: .relaxed)
      pthread_kill(pthread_t(state.thread.load(ordering: .acquiring)), SIGUSR2)
      #expect(await waitUntil(within: 60) { interruptions.load(ordering: .relaxed) > before })
      #expect(
        await waitUntil(within: 60) {
          state.done.load(ordering: .acquiring) || isBlocked(state.task.load(ordering: .acquiring))
        })
      if !state.done.load(ordering: .acquiring) { Syscall.writeAll(fds[1], "*") }
      let (result, error, byte) = await reading.value
      return (result, error, byte)
    }

    /// What the reading thread publishes: its `pthread_t`, its task id, and whether its read returned.
    private final class ReaderState: Sendable {
      let thread = Atomic<UInt>(0)
      let task = Atomic<Int>(0)
      let done = Atomic<Bool>(false)
    }

    /// The calling thread's kernel task id, from `/proc/thread-self` (`PID/task/TID`).
    private func currentTaskID() -> Int {
      guard let link = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/thread-self")
      else { return 0 }
      return Int(link.split(separator: "/").last ?? "") ?? 0
    }

    /// Whether task `id` of this process is asleep (state `S`: blocked in a system call).
    private func isBlocked(_ id: Int) -> Bool {
      guard id != 0,
        let stat = try? String(contentsOfFile: "/proc/self/task/\(id)/stat", encoding: .utf8),
        let end = stat.lastIndex(of: ")")
      else { return false }
      return stat[stat.index(after: end)...].split(separator: " ").first == "S"
    }
  #endif
}
