import StrataPlatform
import Synchronization
import Testing

@testable import Strata

#if os(Linux) && Inotify

  /// Real inotify with scripted failures. Each `poll` throws the next errno of `pollErrors`, then
  /// `pollErrorForEver` if set; each `read` the next of `readErrors`. A `poll` that does not fail is the
  /// real one, which waits only when `waits` is set (tests without the thread drive each turn and must
  /// never block), and can report a descriptor unusable (`POLLNVAL`). Pauses are recorded, and slept only
  /// when `waits` is set.
  final class ScriptedInotify: InotifySystem, Sendable {
    struct Script {
      var pollErrors: [Int32] = []
      var pollErrorForEver: Int32?
      var readErrors: [Int32] = []
      /// Which slot of the next successful `poll` (0: the wake pipe, 1: inotify) to report unusable.
      var invalidSlot: Int?
      var pauses: [Int32] = []
      var timeouts: [Int32] = []
      var inotify: Int32 = -1
    }

    let script = Mutex(Script())
    let waits: Bool

    init(waits: Bool = false) { self.waits = waits }

    func initialize() throws(Errno) -> Int32 {
      let fd = try LiveInotify().initialize()
      script.withLock { $0.inotify = fd }
      return fd
    }

    func addWatch(_ fd: Int32, path: String, mask: InotifyMask) throws(Errno) -> Int32 {
      try LiveInotify().addWatch(fd, path: path, mask: mask)
    }

    func removeWatch(_ fd: Int32, watch: Int32) { LiveInotify().removeWatch(fd, watch: watch) }

    func poll(_ fds: inout [pollfd], timeout: Int32) throws(Errno) -> Int {
      let (error, invalidSlot) = script.withLock { script -> (Int32?, Int?) in
        script.timeouts.append(timeout)
        if !script.pollErrors.isEmpty { return (script.pollErrors.removeFirst(), nil) }
        if let error = script.pollErrorForEver { return (error, nil) }
        defer { script.invalidSlot = nil }
        return (nil, script.invalidSlot)
      }
      if let error { throw Errno(error) }
      let count = try LiveInotify().poll(&fds, timeout: waits ? timeout : 0)
      if let invalidSlot {
        fds[invalidSlot].revents |= Int16(POLLNVAL)
        return count + 1
      }
      return count
    }

    func read(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer) throws(Errno) -> Int {
      let error = script.withLock { $0.readErrors.isEmpty ? nil : $0.readErrors.removeFirst() }
      if let error { throw Errno(error) }
      return try LiveInotify().read(fd, into: buffer)
    }

    func sleep(milliseconds: Int32) {
      script.withLock { $0.pauses.append(milliseconds) }
      if waits { LiveInotify().sleep(milliseconds: milliseconds) }
    }

    var pauses: [Int32] { script.withLock { $0.pauses } }
  }

  /// The batches a watcher delivered, gathered by a task as they come.
  final class GatheredBatches: Sendable {
    let batches = Mutex<[WatchBatch]>([])
    var count: Int { batches.withLock { $0.count } }
    func contains(from start: Int = 0, _ match: (WatchBatch) -> Bool) -> Bool {
      batches.withLock { $0[start...].contains(where: match) }
    }
  }

#endif

/// The inotify hub's thread survives every error: it retries, or gives inotify up and polls, saying why.
@Suite struct WatcherFailureTests {
  #if os(Linux) && Inotify
    func watcher(_ clock: ManualClock, _ system: ScriptedInotify) -> FileWatcher {
      FileWatcher(
        backend: InotifyBackend(system: system), clock: clock.now, missingGracePeriod: .milliseconds(300),
        pollInterval: .seconds(1),
        startsThread: false)
    }

    func polled(_ watcher: FileWatcher) -> Set<String> {
      watcher.core.state.withLock { Set($0.poller.polled.keys) }
    }

    /// Stops a watcher and returns every batch it delivered.
    func batches(_ watcher: FileWatcher) async -> [WatchBatch] {
      watcher.stop()
      var batches: [WatchBatch] = []
      for await batch in watcher.changes { batches.append(batch) }
      return batches
    }

    /// A watcher on `dir/a.ini`, and the file.
    func watching(_ watcher: FileWatcher, in dir: String) throws -> String {
      let file = dir + "/a.ini"
      try write("a = 1\n", to: file)
      watcher.setTargets([file])
      return file
    }
  #endif

  @Test(.needsInotify) func aPollThatFailsFallsBackToPollingWithTheReasonAndStillReports() async throws {
    #if os(Linux) && Inotify
      try await withTemporaryDirectory { dir in
        let clock = ManualClock()
        let system = ScriptedInotify()
        system.script.withLock { $0.pollErrors = [EBADF] }
        let watcher = watcher(clock, system)
        let hub = watcher.core.hub
        let file = try watching(watcher, in: dir)
        #expect(hub.turn())
        // Given up at once, without a pause: every target is polled, and reported once.
        #expect(hub.source == nil)
        #expect(system.pauses.isEmpty)
        let fallback = WatcherFallback(
          path: "*", message: "inotify failed: poll: Bad file descriptor; polling every 1 s")
        #expect(watcher.fallbacks == [fallback])
        #expect(polled(watcher) == [file])
        #expect(watcher.core.state.withLock { $0.watchByDirectory.isEmpty })
        // A later edit is found by polling, on the thread's next turns (each a real, successful `poll`).
        try write("a = 22\n", to: file)
        clock.advance(.seconds(1))
        #expect(hub.turn())
        clock.advance(.milliseconds(100))
        #expect(hub.turn())
        let batches = await batches(watcher)
        #expect(batches.map(\.paths) == [[file], [file]])
        #expect(batches.map(\.fallbacks) == [[fallback], []])
        #expect(!hub.turn())  // stopped
      }
    #endif
  }

  @Test(.needsInotify) func interruptedAndTransientPollFailuresAreRetriedWithoutFallingBack() async throws {
    #if os(Linux) && Inotify
      try await withTemporaryDirectory { dir in
        let clock = ManualClock()
        let system = ScriptedInotify()
        system.script.withLock { $0.pollErrors = [EINTR, ENOMEM, EAGAIN] }
        let watcher = watcher(clock, system)
        let hub = watcher.core.hub
        let file = try watching(watcher, in: dir)
        for _ in 1...3 { #expect(hub.turn()) }
        // EINTR again at once; ENOMEM and EAGAIN after a pause that doubles.
        #expect(system.pauses == [10, 20])
        #expect(hub.source != nil)
        #expect(watcher.fallbacks.isEmpty)
        try write("a = 2\n", to: file)
        #expect(hub.turn())
        // A poll that succeeded ends the run of failures: the next pause is the first again.
        system.script.withLock { $0.pollErrors = [ENOMEM] }
        #expect(hub.turn())
        #expect(system.pauses == [10, 20, 10])
        let batches = await batches(watcher)
        #expect(batches.map(\.paths) == [[file]])
        #expect(batches.flatMap(\.fallbacks).isEmpty)
      }
    #endif
  }

  @Test(.needsInotify) func fiveTransientPollFailuresInARowGiveInotifyUp() async throws {
    #if os(Linux) && Inotify
      try await withTemporaryDirectory { dir in
        let clock = ManualClock()
        let system = ScriptedInotify()
        system.script.withLock { $0.pollErrors = Array(repeating: ENOMEM, count: 5) }
        let watcher = watcher(clock, system)
        let file = try watching(watcher, in: dir)
        for _ in 1...5 { #expect(watcher.core.hub.turn()) }
        #expect(system.pauses == [10, 20, 40, 80])
        #expect(watcher.core.hub.source == nil)
        #expect(
          watcher.fallbacks.map(\.message) == [
            "inotify failed: poll: Cannot allocate memory (5 times in a row); polling every 1 s"
          ])
        #expect(await batches(watcher).map(\.paths) == [[file]])
      }
    #endif
  }

  @Test(.needsInotify) func aFailedReadGivesInotifyUpAndReportsEveryTarget() async throws {
    #if os(Linux) && Inotify
      try await withTemporaryDirectory { dir in
        let clock = ManualClock()
        let system = ScriptedInotify()
        system.script.withLock { $0.readErrors = [EIO] }
        let watcher = watcher(clock, system)
        let file = try watching(watcher, in: dir)
        let other = dir + "/b.ini"
        try write("b = 1\n", to: other)
        watcher.setTargets([file, other])
        try write("a = 2\n", to: file)  // its event is lost with the read
        #expect(watcher.core.hub.turn())
        #expect(
          watcher.fallbacks.map(\.message) == ["inotify failed: read: Input/output error; polling every 1 s"])
        #expect(polled(watcher) == [file, other])
        #expect(await batches(watcher).map(\.paths) == [[file, other]])
      }
    #endif
  }

  @Test(.needsInotify) func aDescriptorPollReportsUnusableGivesInotifyUpWithoutClosingIt() async throws {
    #if os(Linux) && Inotify
      try await withTemporaryDirectory { dir in
        let clock = ManualClock()
        let system = ScriptedInotify()
        let watcher = watcher(clock, system)
        let file = try watching(watcher, in: dir)
        system.script.withLock { $0.invalidSlot = 1 }
        #expect(watcher.core.hub.turn())
        #expect(
          watcher.fallbacks.map(\.message) == [
            "inotify failed: poll: the descriptor is not usable (POLLNVAL); polling every 1 s"
          ])
        // POLLNVAL: the number is no longer the hub's, so the hub must not close it (this test does).
        let inotify = system.script.withLock { $0.inotify }
        #expect(watcher.core.hub.state.withLock { $0.retired.isEmpty })
        #expect(await batches(watcher).map(\.paths) == [[file]])
        close(inotify)
      }
    #endif
  }

  @Test(.needsInotify) func aPollThatKeepsFailingPausesUntilTheNextTimerAndTimersStillFire() async throws {
    #if os(Linux) && Inotify
      try await withTemporaryDirectory { dir in
        let clock = ManualClock()
        let system = ScriptedInotify()
        system.script.withLock { $0.pollErrorForEver = EINVAL }
        let watcher = watcher(clock, system)
        let hub = watcher.core.hub
        let file = try watching(watcher, in: dir)
        #expect(hub.turn())  // gives inotify up
        #expect(
          watcher.fallbacks.map(\.message) == ["inotify failed: poll: Invalid argument; polling every 1 s"])
        #expect(hub.turn())  // fails again: the next poll is 1 s away, the pause at most 100 ms
        #expect(system.pauses == [100])
        try write("a = 22\n", to: file)
        clock.advance(.seconds(1))
        #expect(hub.turn())  // the poll is due: no pause, the change is seen
        clock.advance(.milliseconds(100))
        #expect(hub.turn())  // checked again, and reported
        #expect(system.pauses == [100, 0, 0])
        #expect(await batches(watcher).map(\.paths) == [[file], [file]])
      }
    #endif
  }

  @Test(.needsInotify) func aWakePipeReportedUnusableIsNoLongerPolledAndTheThreadStillLooksAgain()
    async throws
  {
    #if os(Linux) && Inotify
      try await withTemporaryDirectory { dir in
        let clock = ManualClock()
        let system = ScriptedInotify()
        let watcher = watcher(clock, system)
        let hub = watcher.core.hub
        let file = try watching(watcher, in: dir)
        system.script.withLock { $0.invalidSlot = 0 }
        #expect(hub.turn())
        #expect(hub.state.withLock { $0.wakeBroken })
        // Nothing is due, but with nothing to wake it, the thread looks at its state every 100 ms.
        #expect(hub.turn())
        #expect(system.script.withLock { $0.timeouts } == [-1, 100])
        #expect(hub.source != nil)
        try write("a = 2\n", to: file)
        #expect(hub.turn())
        #expect(await batches(watcher).map(\.paths) == [[file]])
      }
    #endif
  }

  /// The same with the real thread, whose `poll` always fails: changes keep coming (deadlines, no sleeps).
  @Test(.needsInotify) func aThreadWhosePollAlwaysFailsKeepsDeliveringChanges() async throws {
    #if os(Linux) && Inotify
      try await withTemporaryDirectory { dir in
        let system = ScriptedInotify(waits: true)
        system.script.withLock { $0.pollErrorForEver = EBADF }
        let watcher = FileWatcher(
          backend: InotifyBackend(system: system), clock: monotonicNanoseconds,
          missingGracePeriod: .milliseconds(100),
          pollInterval: .milliseconds(50), startsThread: true)
        let gathered = GatheredBatches()
        let gathering = Task {
          for await batch in watcher.changes { gathered.batches.withLock { $0.append(batch) } }
        }
        let file = try watching(watcher, in: dir)
        let fellBack = await waitUntil(within: 60) {
          gathered.contains {
            $0.fallbacks.contains { $0.path == "*" && $0.message.hasPrefix("inotify failed: poll: Bad file") }
          }
        }
        #expect(fellBack)
        let seen = gathered.count
        try replaceFile(file, with: "a = 22\n")
        #expect(await waitUntil(within: 60) { gathered.contains(from: seen) { $0.paths.contains(file) } })
        watcher.stop()
        await gathering.value
      }
    #endif
  }
}
