import Foundation
import Synchronization
import Testing

@testable import Strata

#if os(Linux) && Inotify

  /// Fails the watches of some directories while `failing` says so, and can pull a directory out from
  /// under the watcher just before its watch is set (the race of a delete-and-recreate storm).
  final class FlakyInotify: InotifySystem, Sendable {
    let failing = Mutex<Set<String>>([])
    let vanishBeforeWatch = Mutex<Set<String>>([])

    func initialize() throws(Errno) -> Int32 { try LiveInotify().initialize() }

    func addWatch(_ fd: Int32, path: String, mask: InotifyMask) throws(Errno) -> Int32 {
      if vanishBeforeWatch.withLock({ $0.remove(path) }) != nil {
        try? FileManager.default.removeItem(atPath: path)
      }
      if failing.withLock({ $0.contains(path) }) { throw Errno(ENOSPC) }
      return try LiveInotify().addWatch(fd, path: path, mask: mask)
    }

    func removeWatch(_ fd: Int32, watch: Int32) { LiveInotify().removeWatch(fd, watch: watch) }
  }

#endif

/// A watcher that had to poll goes back to inotify as soon as a watch can be set again.
@Suite struct WatchRecoveryTests {
  #if os(Linux) && Inotify
    func watcher(_ clock: ManualClock, _ system: FlakyInotify) -> FileWatcher {
      FileWatcher(
        backend: InotifyBackend(system: system), clock: clock.now, missingGracePeriod: .milliseconds(300),
        pollInterval: .seconds(1),
        startsThread: false)
    }

    func polled(_ watcher: FileWatcher) -> Set<String> {
      watcher.core.state.withLock { Set($0.poller.polled.keys) }
    }
  #endif

  @Test(.needsInotify) func aWatchThatFailedIsRetriedAndPollingEnds() async throws {
    #if os(Linux) && Inotify
      try await withTemporaryDirectory { dir in
        let clock = ManualClock()
        let system = FlakyInotify()
        system.failing.withLock { $0 = [dir] }
        let watcher = watcher(clock, system)
        let file = dir + "/a.ini"
        try write("a = 1\n", to: file)
        watcher.setTargets([file])
        #expect(watcher.fallbacks.map(\.path) == [dir])
        #expect(polled(watcher) == [file])
        // The limit is raised: the next poll sets the watch, and polling ends.
        system.failing.withLock { $0 = [] }
        clock.advance(.seconds(1))
        watcher.pump()
        #expect(watcher.fallbacks.isEmpty)
        #expect(polled(watcher).isEmpty)
        #expect(watcher.core.state.withLock { $0.poller.nextPoll } == nil)
        // An edit now arrives by inotify, with no timer due.
        try write("a = 2\n", to: file)
        watcher.pump()
        #expect(await drained(watcher) == [file])
      }
    #endif
  }

  @Test(.needsInotify) func aDirectoryThatVanishesAsItIsWatchedIsNotPolledOnceItIsBack() async throws {
    #if os(Linux) && Inotify
      try await withTemporaryDirectory { dir in
        let clock = ManualClock()
        let system = FlakyInotify()
        let watcher = watcher(clock, system)
        let conf = dir + "/app.conf.d"
        try write("a = 1\n", to: conf + "/10-a.ini")
        // The directory is deleted between the plan and its watch: planned again around it.
        system.vanishBeforeWatch.withLock { $0 = [conf] }
        watcher.setTargets([conf])
        #expect(watcher.fallbacks.isEmpty)
        #expect(polled(watcher).isEmpty)
        // It comes back: the parent's event re-arms, and the directory is watched, not polled.
        try write("a = 2\n", to: conf + "/10-a.ini")
        watcher.pump()
        #expect(watcher.core.state.withLock { $0.watchByDirectory[conf] } != nil)
        #expect(polled(watcher).isEmpty)
        #expect(watcher.fallbacks.isEmpty)
        #expect(await drained(watcher).contains(conf))
      }
    #endif
  }

  @Test(.needsInotify) func aThousandDeleteAndRecreateCyclesEndWatchedByInotify() async throws {
    #if os(Linux) && Inotify
      try await withTemporaryDirectory { dir in
        let clock = ManualClock()
        let system = FlakyInotify()
        let watcher = watcher(clock, system)
        let conf = dir + "/app.conf.d"
        let file = conf + "/10-a.ini"
        try write("a = 0\n", to: file)
        watcher.setTargets([file, conf])
        for cycle in 1...1000 {
          try? FileManager.default.removeItem(atPath: conf)  // the watcher may have pulled it already
          // Every tenth cycle the directory goes away again just as the watcher sets its watch.
          if cycle % 10 == 0 { system.vanishBeforeWatch.withLock { $0 = [conf] } }
          if cycle % 3 == 0 { watcher.pump() }
          try write("a = \(cycle)\n", to: file)
          if cycle % 7 == 0 { watcher.pump() }
        }
        system.vanishBeforeWatch.withLock { $0 = [] }
        watcher.pump()
        try write("a = last\n", to: file)
        watcher.pump()
        #expect(watcher.core.state.withLock { $0.watchByDirectory[conf] } != nil)
        #expect(polled(watcher).isEmpty)
        #expect(watcher.fallbacks.isEmpty)
        #expect(await drained(watcher).contains(file))
      }
    #endif
  }
}
