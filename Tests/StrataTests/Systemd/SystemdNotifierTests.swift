import Foundation
import StrataPlatform
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

  @Test(.linuxOnly("abstract socket names"))
  func reloadingCarriesTheMonotonicClockToAnAbstractSocket() async throws {
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

  /// Outside systemd (no `NOTIFY_SOCKET`: a developer's laptop, a container) the notifier is off and
  /// every call does nothing; under systemd it is on. Whichever this run is, `init()` must agree.
  @Test func theNotifierIsOnExactlyWhenTheEnvironmentNamesASocket() {
    let socket = ProcessInfo.processInfo.environment["NOTIFY_SOCKET"] ?? ""
    let notifier = SystemdNotifier()
    #expect(notifier.isEnabled == !socket.isEmpty)
    if socket.isEmpty { #expect(!notifier.status("not sent")) }
  }

  @Test func aValueCannotStartAFieldOrCarryANul() async throws {
    let systemd = try NotifySocket(path: nil)
    let notifier = SystemdNotifier(socketPath: systemd.address)
    // "\r\n" is one Character: a replacement of "\n" on Characters let it through whole.
    #expect(notifier.status("a\r\nMAINPID=1"))
    #expect(await systemd.next() == ["STATUS=a  MAINPID=1"])
    #expect(notifier.status("a\u{0}READY=1"))
    #expect(await systemd.next() == ["STATUS=a READY=1"])
    #expect(notifier.ready(status: "b\rRELOADING=1\n\r"))
    #expect(await systemd.next() == ["READY=1", "STATUS=b RELOADING=1  "])
    #expect(notifier.send(["X-A=1\r\nX-B=2", "X-C=\u{0}"]))
    #expect(await systemd.next() == ["X-A=1  X-B=2", "X-C= "])
  }

  @Test func aSocketNobodyReadsHoldsUpNoCallAndGetsTheNewestStatusAndReadyOnceRead() async throws {
    let systemd = try NotifySocket(path: nil)
    let filled = systemd.fill()
    try #require(filled > 0)
    let notifier = SystemdNotifier(socketPath: systemd.address)
    // On a thread of its own, awaited: what is checked is that the calls return at all (a blocking send
    // would hang here until systemd reads), not how fast.
    let calls = await OwnThread { () -> [Bool] in
      var accepted = (1...1_000).map { notifier.status("edit \($0)") }
      accepted.append(notifier.ready())
      accepted.append(notifier.status("final"))
      return accepted
    }.value(within: 120)
    let accepted = try #require(calls, "a notification blocked on a socket nobody reads")
    #expect(accepted.allSatisfy { $0 }, "a queued message counts as accepted")
    // Nothing was read yet: the statuses merged, READY=1 kept its place.
    let waiting = NotifyOutbox.forSocket(systemd.address).waiting.map {
      NotifySocket.fields(of: $0.bytes[...])
    }
    #expect(waiting == [["STATUS=edit 1000"], ["READY=1"], ["STATUS=final"]])

    // systemd reads again: the filler, then the notifier's messages, in order.
    var received: [[String]] = []
    while let fields = await systemd.next() {
      if fields != ["X-FILLER=1"] { received.append(fields) }
      if fields == ["STATUS=final"] { break }
    }
    #expect(received == [["STATUS=edit 1000"], ["READY=1"], ["STATUS=final"]])
    #expect(await waitUntil(within: 60) { NotifyOutbox.forSocket(systemd.address).waiting.isEmpty })
  }

  /// A notification never holds up a reload: with the socket full and nobody reading it, every edit is
  /// applied, and once systemd reads again the last message says the current generation is ready.
  @Test func reloadsGoOnWhileNobodyReadsTheSocket() async throws {
    try await withTemporaryDirectory { dir in
      try write("[server]\nworkers = 1\n", to: dir + "/app.ini")
      let systemd = try NotifySocket(path: dir + "/notify")
      try #require(systemd.fill() > 0)
      let store = SettingsStore(layers: [FileLayer(scope: .system, files: [dir + "/app.ini"])])
      let settings = EventedSettings(store: store)
      let (requests, request) = AsyncStream<Void>.makeStream()
      let notifier = SystemdNotifier(socketPath: systemd.address)
      let running = Task {
        await store.run(watcher: FileWatcher(), reloadRequests: requests, systemd: notifier)
      }
      defer { running.cancel() }
      // More reloads than the outbox holds messages (each says RELOADING=1 and READY=1).
      for workers in 2...61 {
        try replaceFile(dir + "/app.ini", with: "[server]\nworkers = \(workers)\n")
        request.yield()
        try #require(
          await waitUntil(within: 60) { settings.workers == workers }, "edit \(workers) not applied")
      }
      let current = "STATUS=configuration generation \(store.generation)"
      var sawCurrent = false
      while let fields = await systemd.next() {
        if fields.contains("READY=1") && fields.contains(current) {
          sawCurrent = true
          break
        }
      }
      #expect(sawCurrent, "no READY=1 with \(current) once the socket was read")
      #expect(await waitUntil(within: 60) { NotifyOutbox.forSocket(systemd.address).waiting.isEmpty })
    }
  }

  @Test func withNothingListeningASendFailsAndNothingWaits() throws {
    try withTemporaryDirectory { dir in
      let notifier = SystemdNotifier(socketPath: dir + "/nobody")
      #expect(notifier.isEnabled)
      #expect(!notifier.ready())
      #expect(NotifyOutbox.forSocket(dir + "/nobody").waiting.isEmpty)
      let tooLong = SystemdNotifier(socketPath: "/" + String(repeating: "x", count: 200))
      #expect(!tooLong.status("s"))
    }
  }

  @Test func theRunLoopSaysReadyAndAppliesAReloadBeforeSayingReadyAgain() async throws {
    try await withTemporaryDirectory { dir in
      try write("[server]\nworkers = 1\n", to: dir + "/app.ini")
      let systemd = try NotifySocket(path: dir + "/notify")
      let store = SettingsStore(layers: [FileLayer(scope: .system, files: [dir + "/app.ini"])])
      let settings = EventedSettings(store: store)
      let (requests, request) = AsyncStream<Void>.makeStream()
      let notifier = SystemdNotifier(socketPath: systemd.address)
      let running = Task {
        await store.run(watcher: FileWatcher(), reloadRequests: requests, systemd: notifier)
      }
      defer { running.cancel() }

      let started = try #require(await systemd.until("READY=1"))
      #expect(started.last?.contains { $0.hasPrefix("STATUS=configuration generation ") } == true)
      // Replaced whole, as an editor saves (the store watches the file too).
      try replaceFile(dir + "/app.ini", with: "[server]\nworkers = 7\n")
      request.yield()
      let reload = try #require(await systemd.until("READY=1"))
      #expect(reload.contains { $0.first == "RELOADING=1" })
      // READY=1 comes only once the reload is applied: the new value is in use by then.
      #expect(settings.workers == 7)
      #expect(reload.last?.contains("STATUS=configuration generation \(store.generation)") == true)

      // A file that no longer parses keeps its last good contents, and the status says so.
      try replaceFile(dir + "/app.ini", with: "[server\n")
      request.yield()
      let broken = try #require(await systemd.until("READY=1"))
      #expect(broken.last?.contains { $0.hasSuffix("; 1 file failed to load, last good kept") } == true)
      #expect(settings.workers == 7)

      // A value the setting refuses: the running value stays, and the status says so.
      try replaceFile(dir + "/app.ini", with: "[server]\nworkers = many\n")
      request.yield()
      let rejected = try #require(await systemd.until("READY=1"))
      #expect(
        rejected.last?.contains { $0.hasSuffix("; 1 edit rejected, running value kept") } == true,
        "\(rejected)")
      #expect(settings.workers == 7)

      // The run ends (the service stops): STOPPING=1.
      running.cancel()
      #expect(await systemd.until("STOPPING=1") != nil)
    }
  }
}

/// The sample server under a fake systemd: `systemctl reload` (SIGHUP) waits for its READY=1, and
/// `systemctl stop` (SIGTERM) hears STOPPING=1.
@Suite struct SystemdSampleTests {
  @Test func hotReloadServerSaysReadyAndAnswersSIGHUPWithReloadingThenReady() async throws {
    try await withTemporaryDirectory { dir in
      let root = dir + "/root"
      try await shell("cp -r \(repositoryRoot)/Samples/HotReloadServer/root \(root)")
      try await shell("sed -i 's/^port = .*/port = 0/' \(root)/etc/hotreload/hotreload.ini")
      let systemd = try NotifySocket(path: nil)
      let server = try startHotReloadServer(
        root: root, in: dir, environment: ["NOTIFY_SOCKET": systemd.address])
      let started = try #require(await systemd.until("READY=1"), "\(server.transcript)")
      #expect(started.last?.contains { $0.hasPrefix("STATUS=configuration generation ") } == true)
      server.send(SIGHUP)
      let reload = try #require(await systemd.until("READY=1"), "\(server.transcript)")
      #expect(reload.first?.first == "RELOADING=1")
      #expect(reload.first?.last?.hasPrefix("MONOTONIC_USEC=") == true)
      server.send(SIGTERM)
      // `systemctl stop`: the run loop ends and says so before the process exits.
      #expect(await systemd.until("STOPPING=1") != nil, "\(server.transcript)")
      #expect(await server.finish(within: 60).ending == .exited(0))
    }
  }
}
