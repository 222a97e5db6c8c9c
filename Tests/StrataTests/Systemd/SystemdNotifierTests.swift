import Foundation
import Glibc
import Testing

@testable import Strata

/// systemd's notify-reload protocol, against a fake NOTIFY_SOCKET.
@Suite struct SystemdNotifierTests {
  @Test func readyAndStatusReachAPathSocket() async throws {
    try await withTemporaryDirectory { dir in
      let systemd = try NotifySocket(path: dir + "/notify")
      let notifier = SystemdNotifier(socketPath: systemd.address)
      #expect(notifier.ready(status: "loaded\nwith a newline"))
      #expect(await systemd.next() == ["READY=1", "STATUS=loaded with a newline"])
      #expect(notifier.stopping())
      #expect(await systemd.next() == ["STOPPING=1"])
    }
  }

  @Test func reloadingCarriesTheMonotonicClockToAnAbstractSocket() async throws {
    let systemd = try NotifySocket(path: nil)
    let notifier = SystemdNotifier(socketPath: systemd.address)
    var before = timespec()
    clock_gettime(CLOCK_MONOTONIC, &before)
    #expect(notifier.reloading())
    let fields = try #require(await systemd.next())
    #expect(fields.first == "RELOADING=1")
    let microseconds = try #require(fields.last.flatMap { Int($0.dropFirst("MONOTONIC_USEC=".count)) })
    #expect(fields.last?.hasPrefix("MONOTONIC_USEC=") == true)
    #expect(microseconds >= Int(before.tv_sec) * 1_000_000)
  }

  @Test func withoutASocketNothingIsSent() {
    let notifier = SystemdNotifier(socketPath: nil)
    #expect(!notifier.isEnabled)
    #expect(!notifier.ready())
    #expect(!SystemdNotifier(socketPath: "").isEnabled)
  }

  @Test func theRunLoopSaysReadyAndAppliesAReloadBeforeSayingReadyAgain() async throws {
    try await withTemporaryDirectory { dir in
      try write("[server]\nworkers = 1\n", to: dir + "/app.ini")
      let systemd = try NotifySocket(path: dir + "/notify")
      let store = SettingsStore(layers: [FileLayer(scope: .system, files: [dir + "/app.ini"])])
      let settings = EventedSettings(store: store)
      let (requests, request) = AsyncStream<Void>.makeStream()
      let notifier = SystemdNotifier(socketPath: systemd.address)
      let running = Task { await store.run(reloadRequests: requests, notifying: notifier) }
      defer { running.cancel() }

      let started = try #require(await systemd.until("READY=1"))
      #expect(started.last?.contains { $0.hasPrefix("STATUS=configuration generation ") } == true)
      try write("[server]\nworkers = 7\n", to: dir + "/app.ini")
      request.yield()
      let reload = try #require(await systemd.until("READY=1"))
      #expect(reload.contains { $0.first == "RELOADING=1" })
      // READY=1 comes only once the reload is applied: the new value is in use by then.
      #expect(settings.workers == 7)
      #expect(reload.last?.contains("STATUS=configuration generation \(store.generation)") == true)

      // A file that no longer parses keeps its last good contents, and the status says so.
      try write("[server\n", to: dir + "/app.ini")
      request.yield()
      let broken = try #require(await systemd.until("READY=1"))
      #expect(broken.last?.contains { $0.hasSuffix("; 1 file failed to load, last good kept") } == true)
      #expect(settings.workers == 7)
    }
  }
}

/// The sample server under a fake systemd: `systemctl reload` (SIGHUP) waits for its READY=1.
@Suite struct SystemdSampleTests {
  @Test func hotReloadServerSaysReadyAndAnswersSIGHUPWithReloadingThenReady() async throws {
    try await withTemporaryDirectory { dir in
      let root = dir + "/root"
      try await shell("cp -r \(repositoryRoot)/Samples/HotReloadServer/root \(root)")
      try await shell("sed -i 's/^port = .*/port = 0/' \(root)/etc/hotreload/hotreload.ini")
      let systemd = try NotifySocket(path: nil)
      let server = try ChildProcess(
        (configDumpPath as NSString).deletingLastPathComponent + "/hot-reload-server", ["--root", root],
        environment: Spawn.defaultEnvironment.merging(["NOTIFY_SOCKET": systemd.address]) { $1 }, in: dir)
      let started = try #require(await systemd.until("READY=1"), "\(server.transcript)")
      #expect(started.last?.contains { $0.hasPrefix("STATUS=configuration generation ") } == true)
      server.send(SIGHUP)
      let reload = try #require(await systemd.until("READY=1"), "\(server.transcript)")
      #expect(reload.first?.first == "RELOADING=1")
      #expect(reload.first?.last?.hasPrefix("MONOTONIC_USEC=") == true)
      server.send(SIGTERM)
      #expect(await server.finish(within: 60).ending == .exited(0))
    }
  }
}
