import Foundation
import StrataPlatform
import Testing

@testable import Strata

/// When inotify runs out (`fs.inotify.max_user_watches`: `ENOSPC`; `max_user_instances`: `EMFILE`), the
/// store falls back to polling and still reloads.
///
/// Two ways: real limits, set in a child user namespace (whose `/proc/sys/user/max_inotify_*` its own
/// root may lower, without touching the machine's), with the store running in `strata-stress-child`;
/// and the errno injected through the `InotifySystem` seam into a store running in this process.
@Suite struct InotifyLimitTests {
  #if os(Linux) && Inotify
    /// Whether this machine lets us create a user namespace and lower its inotify limits.
    static func userNamespacesWork() async -> Bool {
      let script = "echo 0 > /proc/sys/user/max_inotify_watches"
      guard let child = try? ChildProcess("/usr/bin/unshare", ["-U", "-r", "sh", "-c", script]) else {
        return false
      }
      return await child.finish(within: 30).ending == .exited(0)
    }

    /// Runs `strata-stress-child watch FILE` with `limit` set to 0 in its own user namespace, and checks
    /// it reports `expectedFallback` and then follows two edits by polling.
    func watchUnderARealLimit(_ limit: String, expectedFallback: String) async throws {
      guard await Self.userNamespacesWork() else {
        try Test.cancel("cannot create a user namespace here (unshare -U -r): real inotify limits not tested")
      }
      try await withTemporaryDirectory { dir in
        let file = dir + "/app.ini"
        try write("[app]\nvalue = one\n", to: file)
        let script = "echo 0 > /proc/sys/user/\(limit) && exec \"$0\" watch \"$1\""
        let child = try ChildProcess(
          "/usr/bin/unshare", ["-U", "-r", "sh", "-c", script, stressChildPath, file])
        // `ready` (every path set up) comes before the fallback event of the first batch.
        #expect(await child.line(startingWith: "ready") != nil, "\(child.transcript)")
        let fallback = await child.line(startingWith: "fallback ")
        #expect(fallback?.contains(expectedFallback) == true, "\(child.transcript)")
        for value in ["two", "three"] {
          try replaceFile(file, with: "[app]\nvalue = \(value)\n")
          #expect(await child.line(startingWith: "value \(value)") != nil, "\(child.transcript)")
        }
        print("InotifyLimit (\(limit) = 0 in a user namespace): \(fallback ?? "no fallback")")
      }
    }
  #endif

  @Test(.needsInotify) func aRealWatchLimitFallsBackToPollingAndStillReloads() async throws {
    #if os(Linux) && Inotify
      try await watchUnderARealLimit("max_inotify_watches", expectedFallback: "fs.inotify.max_user_watches")
    #endif
  }

  @Test(.needsInotify) func aRealInstanceLimitFallsBackToPollingAndStillReloads() async throws {
    #if os(Linux) && Inotify
      try await watchUnderARealLimit(
        "max_inotify_instances", expectedFallback: "fs.inotify.max_user_instances")
    #endif
  }

  /// `EMFILE` from `inotify_init1`: every path is polled, and reloads keep coming, edit after edit.
  @Test(.needsInotify) func aStoreWithoutInotifyPollsEveryPathAndStillReloads() async throws {
    #if os(Linux) && Inotify
      try await withTemporaryDirectory { dir in
        let system = dir + "/etc/app.ini"
        let user = dir + "/home/app.ini"
        try write("[app]\nvalue = one\n", to: system)
        try FileManager.default.createDirectory(atPath: dir + "/home", withIntermediateDirectories: true)
        let store = SettingsStore(
          layers: [FileLayer(scope: .system, files: [system]), FileLayer(scope: .user, files: [user])],
          writeTarget: .file(user))
        let settings = WatchedSettings(store: store)
        let watcher = FileWatcher(
          backend: InotifyBackend(system: FailingInotify(failing: [], code: 0, initializeCode: EMFILE)),
          clock: monotonicNanoseconds,
          missingGracePeriod: .milliseconds(100), pollInterval: .milliseconds(50), startsThread: true)
        let events = store.events
        let running = Task { await store.run(watcher: watcher) }
        defer { running.cancel() }
        var fallback: (path: String, message: String)?
        for await event in events {
          if case .watcherFallback(let path, let message) = event {
            fallback = (path, message)
            break
          }
        }
        #expect(fallback?.path == "*")
        #expect(fallback?.message.contains("fs.inotify.max_user_instances") == true)
        let values = settings.$value.changes
        let counts = settings.$count.changes
        for round in 1...3 {
          try replaceFile(system, with: "[app]\nvalue = edit\(round)\n")
          #expect(await eventually(values, equals: "edit\(round)", within: 30))
          // A file that did not exist when polling started (the user file), edited by someone else.
          try replaceFile(user, with: "[app]\ncount = \(round)\n")
          #expect(await eventually(counts, equals: round, within: 30))
        }
      }
    #endif
  }

  /// `ENOSPC` for one directory only: that one is polled, the other still watched, and both reload.
  @Test(.needsInotify) func aPartialWatchLimitPollsOnlyWhatCouldNotBeWatched() async throws {
    #if os(Linux) && Inotify
      try await withTemporaryDirectory { dir in
        let polled = dir + "/etc/app.ini"
        let watched = dir + "/home/app.ini"
        try write("[app]\nvalue = one\n", to: polled)
        try write("[app]\ncount = 0\n", to: watched)
        let store = SettingsStore(layers: [
          FileLayer(scope: .system, files: [polled]), FileLayer(scope: .user, files: [watched]),
        ])
        let settings = WatchedSettings(store: store)
        let watcher = FileWatcher(
          backend: InotifyBackend(system: FailingInotify(failing: [dir + "/etc"], code: ENOSPC)),
          clock: monotonicNanoseconds,
          missingGracePeriod: .milliseconds(100), pollInterval: .milliseconds(50), startsThread: true)
        let events = store.events
        let running = Task { await store.run(watcher: watcher) }
        defer { running.cancel() }
        var fallbacks: [String] = []
        for await event in events {
          if case .watcherFallback(let path, _) = event {
            fallbacks.append(path)
            break
          }
        }
        #expect(fallbacks == [dir + "/etc"])
        #expect(watcher.core.state.withLock { $0.watchByDirectory[dir + "/home"] } != nil)
        let values = settings.$value.changes
        let counts = settings.$count.changes
        for round in 1...3 {
          try replaceFile(polled, with: "[app]\nvalue = edit\(round)\n")
          try replaceFile(watched, with: "[app]\ncount = \(round)\n")
          #expect(await eventually(values, equals: "edit\(round)", within: 30))
          #expect(await eventually(counts, equals: round, within: 30))
        }
        #expect(watcher.fallbacks.map(\.path) == [dir + "/etc"])
      }
    #endif
  }
}
