import Foundation
import StrataPlatform
import Testing

/// Blocking work runs on threads of its own and is awaited, with or without a deadline.
@Suite struct OwnThreadTests {
  @Test func aResultAndAnErrorComeBack() async {
    #expect(await onOwnThread { 6 * 7 } == 42)
    struct Failure: Error {}
    await #expect(throws: Failure.self) { try await onOwnThread { () throws -> Int in throw Failure() } }
  }

  @Test func aDeadlinePassesWhileTheWorkIsBlockedAndTheValueStillComesLater() async throws {
    var fds: [Int32] = [-1, -1]
    try #require(pipe(&fds) == 0)
    let (readEnd, writeEnd) = (fds[0], fds[1])
    defer { close(readEnd) }
    // Blocked in read() until the test writes: nothing else can end it.
    let reader = OwnThread { () -> UInt8 in
      var byte: UInt8 = 0
      while read(readEnd, &byte, 1) < 0 && errno == EINTR {}
      return byte
    }
    #expect(await reader.value(within: 0.05) == nil)
    var byte: UInt8 = 7
    #expect(write(writeEnd, &byte, 1) == 1)
    close(writeEnd)
    #expect(await reader.value(within: 60) == 7)
    #expect(await reader.value == 7)  // and to every later waiter
  }

  @Test func aThreadGroupRunsEveryBodyAtOnceAndJoinsThemAll() async {
    let arrived = SharedInt()
    let metTheOthers = SharedInt()
    // Each body waits until all six have started: on fewer threads than bodies this would never be
    // true (the deadline only keeps a broken helper from hanging the suite).
    await ThreadGroup.run(6) { _ in
      arrived.add(1)
      let deadline = Date().addingTimeInterval(60)
      while arrived.load() < 6 && Date() < deadline { sched_yield() }
      if arrived.load() == 6 { metTheOthers.add(1) }
    }
    #expect(metTheOthers.load() == 6)
  }
}

@Suite struct ThreadChecksTests {
  @Test func aFailedCheckOnTheThreadIsRecordedOnTheTest() async throws {
    try await withKnownIssue {
      try await checkedOnOwnThread { checks in
        checks.expect(1 + 1 == 2, "holds")
        checks.expect(1 + 1 == 3, "does not hold")
      }
    } matching: { issue in
      issue.comments.map(\.rawValue) == ["does not hold"]
    }
  }

  @Test func whatTheThreadThrowsIsThrownHere() async {
    struct Failure: Error {}
    await #expect(throws: Failure.self) { try await checkedOnOwnThread { _ in throw Failure() } }
  }
}
