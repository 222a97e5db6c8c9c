import Foundation
import StrataPlatform
import Synchronization
import Testing

/// The platform layer's wrappers of what each C library spells its own way.
@Suite struct PlatformTests {
  @Test func theModificationTimeIsWhatTouchSet() async throws {
    try await withTemporaryDirectory { dir in
      let path = dir + "/file"
      try write("x", to: path)
      var before = timespec()
      clock_gettime(CLOCK_REALTIME, &before)
      let touched = try await Spawn.run("/usr/bin/env", ["touch", "-d", "2001-02-03T04:05:06.789Z", path])
      try #require(touched.status == 0, "\(touched.errors)")
      var info = stat()
      try #require(stat(path, &info) == 0)
      #expect(info.modificationTime.tv_sec == 981_173_106)  // 2001-02-03 04:05:06 UTC
      #expect(info.modificationTime.tv_nsec == 789_000_000)
      #expect(info.modificationTime.nanoseconds == 981_173_106_789_000_000)
      // The status change is the touch itself, now (file systems may round down to the second).
      #expect(info.statusChangeTime.tv_sec >= before.tv_sec - 1)
      #expect(info.statusChangeTime.nanoseconds > info.modificationTime.nanoseconds)
    }
  }

  @Test func theEnvironmentEntriesAreTheProcessEnvironment() {
    var names: Set<String> = []
    var entries = 0
    ProcessEnvironment.forEachEntry { bytes in
      entries += 1
      #expect(!bytes.contains(0))
      if let equals = bytes.firstIndex(of: UInt8(ascii: "=")) {
        names.insert(String(decoding: bytes[..<equals], as: UTF8.self))
      }
    }
    #expect(entries > 0)
    #expect(names == Set(ProcessInfo.processInfo.environment.keys))
  }

  @Test(arguments: [false, true])
  func closingFromADescriptorClosesItAndEveryOneAboveOnly(fallback: Bool) async throws {
    // In a process of its own: closing every descriptor above one here would close the test runner's.
    let child = try await Spawn.run(
      stressChildPath, ["close-from"] + (fallback ? ["fallback"] : []), within: 120)
    #expect(child.status == 0, "\(child.output)\(child.errors)")
    #expect(child.output == "open=0,1\n")
  }

  @Test func aFallbackFromAboveTheLimitClosesNothing() throws {
    var fds: [CInt] = [-1, -1]
    try #require(CloseOnExecPipe.open(&fds) == 0)
    defer { for fd in fds { Syscall.close(fd) } }
    DescriptorRange.closeEachBelowLimit(from: CInt(clamping: sysconf(CInt(_SC_OPEN_MAX))))
    for fd in fds { #expect(fcntl(fd, F_GETFD) != -1) }
  }

  @Test func aDetachedThreadRunsItsBodyOnAnotherThread() async {
    let here = ThreadIdentity.current
    #expect(here == ThreadIdentity.current)
    let there = await withCheckedContinuation { (continuation: CheckedContinuation<ThreadIdentity, Never>) in
      let started = DetachedThread.start { continuation.resume(returning: ThreadIdentity.current) }
      if !started { continuation.resume(returning: here) }
    }
    #expect(there != here)
  }

  @Test func aWaiterGoesOnOnlyOnceTheStateSaysSo() async {
    let lock = ConditionLock(0)
    let steps = SharedInt()
    let waiter = OwnThread { () -> Int in
      lock.wait(while: { $0 < 3 }) { value in
        steps.add(100)  // runs once, with the lock held, after the third step
        return value
      }
    }
    for _ in 1...3 {
      #expect(steps.load() < 100)
      lock.withLock { value in
        value += 1
        steps.add(1)
        lock.signal()
      }
    }
    #expect(await waiter.value == 3)
    #expect(steps.load() == 103)
  }

  @Test(.linuxOnly("glibc's malloc_usable_size"))
  func theAllocationSizeCoversWhatWasAsked() throws {
    let block = try #require(malloc(100))
    defer { free(block) }
    #expect(try #require(AllocationSize.of(block)) >= 100)
  }
}
