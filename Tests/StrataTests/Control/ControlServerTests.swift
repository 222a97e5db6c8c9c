import Foundation
import StrataPlatform
import Testing

@testable import Strata

/// A clock the test moves by hand.
final class ManualControlClock: ControlClock {
  private let now = Locked(0.0)
  var seconds: Double { now.withLock { $0 } }
  func advance(by seconds: Double) { now.withLock { $0 += seconds } }
}

struct LogSettings: SettingsGroup {
  @Setting(
    help: "How much to log",
    validation: SettingValidation("must be error, info or debug") { ["error", "info", "debug"].contains($0) })
  var level = "info"
  @Setting(traits: .readOnly, help: "Where the log goes") var path = "/var/log/app.log"
}

/// The control socket served by a store in this process: a clock the test moves, and a socket mode
/// that lets another user reach the peer-credential check.
@Suite(.linuxOnly("SO_PEERCRED; setpriv")) struct ControlServerTests {
  /// A store over one INI file with a `log` group, serving its socket in `dir`, the events it tells.
  final class Served: Sendable {
    let store: SettingsStore
    let group: LogSettings
    let server: ControlServer
    let events = Locked<[String]>([])

    init(dir: String, clock: any ControlClock, mode: mode_t = 0o600) throws {
      try write("[log]\nlevel = error\n", to: dir + "/app.ini")
      store = SettingsStore(layers: [FileLayer(scope: .user, files: [dir + "/app.ini"])])
      group = LogSettings(store: store)
      server = try store.startControl(at: dir + "/control.sock", clock: clock, mode: mode, environment: [:])
      store.observeEvents { [events] event in events.withLock { $0.append(event.description) } }
    }

    func ask(_ arguments: [String], in dir: String) async throws -> DumpRun {
      try await runConfigDump(["--socket", server.path] + arguments, in: dir)
    }

    deinit { server.stop() }
  }

  @Test func anOverrideExpiresByTheClockWithAnEvent() async throws {
    try await withTemporaryDirectory { dir in
      let clock = ManualControlClock()
      let served = try Served(dir: dir, clock: clock)
      let set = try await served.ask(["--set", "log.level=debug", "--for", "15m"], in: dir)
      #expect(set.status == 0, "\(set)")
      #expect(served.group.level == "debug")
      #expect(served.group.$level.origin == .runtime)
      clock.advance(by: 600)
      let status = try await served.ask([], in: dir)
      #expect(status.output.contains("  log.level = debug  (5m 0s left)"), "\(status)")
      // Not yet: 5 minutes are left.
      served.server.wake()
      #expect(served.group.level == "debug")
      clock.advance(by: 300)
      served.server.wake()
      #expect(
        await waitUntil(within: 30) {
          served.events.withLock {
            $0.contains("override of log.level expired; the configured value applies again")
          }
        }, "\(served.events.withLock { $0 })")
      #expect(served.group.level == "error")
      #expect(served.group.$level.origin == .file(path: dir + "/app.ini", line: 2, column: 9))
      let after = try await served.ask([], in: dir)
      #expect(!after.output.contains("Overrides"), "\(after)")
      // An override still standing when the socket stops serving ends with it.
      #expect(try await served.ask(["--set", "log.level=info", "--for", "1h"], in: dir).status == 0)
      #expect(served.group.level == "info")
      served.server.stop()
      await served.server.finished()
      #expect(!FileManager.default.fileExists(atPath: dir + "/control.sock"))
      #expect(served.group.level == "error")
      #expect(
        served.events.withLock { $0.filter { $0.hasPrefix("override of log.level expired") }.count } == 2)
    }
  }

  @Test func anOverrideKeepsARuntimeValueItReplacedAndRefusesAReadOnlySetting() async throws {
    try await withTemporaryDirectory { dir in
      let clock = ManualControlClock()
      let served = try Served(dir: dir, clock: clock)
      try await served.store.setRuntimeValue(
        SettingValue(.string("info"), origin: .runtime), forKey: "log.level")
      #expect(try await served.ask(["--set", "log.level=debug", "--for", "1m"], in: dir).status == 0)
      #expect(served.group.level == "debug")
      #expect(try await served.ask(["--unset", "log.level"], in: dir).status == 0)
      #expect(served.group.level == "info")  // the program's own runtime value is back
      let readOnly = try await served.ask(["--set", "log.path=/tmp/x", "--for", "1m"], in: dir)
      #expect(readOnly.status == 1 && readOnly.errors.contains("log.path is read-only"), "\(readOnly)")
      let invalid = try await served.ask(["--set", "log.level=loud", "--for", "1m"], in: dir)
      #expect(invalid.status == 1 && invalid.errors.contains("log.level"), "\(invalid)")
      #expect(served.group.level == "info")
    }
  }

  @Test func aConnectionFromAnotherUserIsRefusedAndReported() async throws {
    guard geteuid() == 0, FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv") else {
      try Test.cancel("needs root and setpriv to connect as another user")
    }
    try await withTemporaryDirectory { dir in
      #expect(chmod(dir, 0o755) == 0)
      // A mode every user may connect through: only the peer-credential check stands in the way.
      let served = try Served(dir: dir, clock: ManualControlClock(), mode: 0o666)
      let drop = ["--reuid=65534", "--regid=65534", "--clear-groups"]
      let run = try await Spawn.run(
        "/usr/bin/setpriv", drop + [configDumpPath, "--socket", served.server.path], within: 60)
      #expect(run.status == 1, "\(run)")
      #expect(
        run.errors.contains("the service refused: refused: only uid 0 and root may use this socket"), "\(run)"
      )
      #expect(
        await waitUntil(within: 30) {
          served.events.withLock {
            $0.contains { $0.hasPrefix("control socket: refused a connection from uid 65534 (pid ") }
          }
        }, "\(served.events.withLock { $0 })")
      // The service's own user is still served.
      let own = try await served.ask([], in: dir)
      #expect(own.status == 0, "\(own)")
    }
  }

  @Test func aSecondServerOnTheSamePathIsRefusedAndAStaleSocketIsReplaced() async throws {
    try await withTemporaryDirectory { dir in
      let served = try Served(dir: dir, clock: ManualControlClock())
      #expect(throws: StrataError.self) {
        _ = try served.store.startControl(at: served.server.path, clock: ManualControlClock())
      }
      served.server.stop()
      await served.server.finished()
      // A socket file no process listens on (a service killed with SIGKILL) is taken over.
      let fd = LocalStreamSocket.listen(at: served.server.path, mode: 0o600)
      Syscall.close(fd)
      let again = try served.store.startControl(at: served.server.path, clock: ManualControlClock())
      #expect(try await runConfigDump(["--socket", again.path], in: dir).status == 0)
      again.stop()
      await again.finished()
    }
  }

  struct ListenSettings: SettingsGroup {
    @Setting(traits: .restartRequired) var port = 8080
  }

  /// An override of a setting fixed at start could never apply (a restart ends it), and a value with a
  /// NUL character no file could hold: both are refused, and nothing changes.
  @Test func anOverrideThatCouldNeverApplyOrHoldsANULIsRefused() async throws {
    try await withTemporaryDirectory { dir in
      let served = try Served(dir: dir, clock: ManualControlClock())
      let listen = ListenSettings(store: served.store)
      let restart = try await served.ask(["--set", "listen.port=9999", "--for", "1m"], in: dir)
      #expect(restart.status == 1, "\(restart)")
      #expect(restart.errors.contains("listen.port applies only at start"), "\(restart)")
      let path = served.server.path
      let nul = await onOwnThread { () -> ControlResponse? in
        let request = ControlRequest(request: "set", key: "log.level", value: "info\u{0}x", seconds: 60)
        return try? ControlClient.send(request, to: path)
      }
      #expect(nul?.ok == false && nul?.error?.contains("NUL character") == true, "\(String(describing: nul))")
      #expect(listen.port == 8080 && served.group.level == "error")
      #expect(served.store.pendingRestarts.isEmpty)
    }
  }

  @Test func aNewConnectionTakesTheSlotOfTheOldestWithoutARequest() async throws {
    try await withTemporaryDirectory { dir in
      let served = try Served(dir: dir, clock: ManualControlClock())
      // Every slot is held by a client that sent part of a request and no more.
      let slow = (0..<ControlProtocol.maxConnections).map { _ in RawClient(served.server.path) }
      for client in slow { client.send(Array("{".utf8)) }
      // One that asks at once is answered.
      let request = Array(#"{"version":1,"request":"status"}"#.utf8) + [UInt8(ascii: "\n")]
      let answer = await RawClient.exchange(served.server.path, send: request)
      #expect(answer.contains(#""ok":true"#), "\(answer)")
      // The oldest slow one lost its slot, and was told why.
      let told = await slow[0].readToEnd(within: 60)
      #expect(told.contains(#""limit":"maxConnections""#), "\(told)")
      #expect(told.contains("a newer connection needed the slot"), "\(told)")
      withExtendedLifetime(slow) {}
    }
  }

  /// Eight clients dribble a byte every 100 ms and connect again as soon as they are closed, as a
  /// slowloris attack does: every request sent whole at once is still answered, each within 1 s (the
  /// slot of the oldest dribbler is taken at once; no "busy" and retry).
  @Test func clientsThatDribbleAndReconnectDoNotKeepOutOneThatAsks() async throws {
    try await withTemporaryDirectory { dir in
      let served = try Served(dir: dir, clock: ManualControlClock())
      let path = served.server.path
      let stop = SharedInt()
      let connected = SharedInt()
      let dribblers = (0..<ControlProtocol.maxConnections).map { _ in
        OwnThread { () -> Int in
          var connections = 0
          while stop.load() == 0 {
            let client = RawClient(path)
            guard client.fd >= 0 else {
              usleep(10_000)
              continue
            }
            connections += 1
            connected.add(1)
            while stop.load() == 0 {
              client.send([UInt8(ascii: " ")])
              var ready = pollfd(fd: client.fd, events: Int16(POLLIN), revents: 0)
              if poll(&ready, 1, 100) != 0 { break }  // answered (closed), or gone
            }
          }
          return connections
        }
      }
      // Every slot taken before the owner asks.
      #expect(await waitUntil(within: 60) { connected.load() >= ControlProtocol.maxConnections })
      var times: [Duration] = []
      for _ in 0..<5 {
        let (response, took) = try await onOwnThread {
          () throws(StrataError) -> (ControlResponse, Duration) in
          let clock = ContinuousClock()
          let start = clock.now
          let response = try ControlClient.send(ControlRequest(request: "status"), to: path, within: 60)
          return (response, start.duration(to: clock.now))
        }
        #expect(response.ok, "\(response)")
        times.append(took)
      }
      #expect(times.allSatisfy { $0 < .seconds(1) }, "\(times)")
      print("control socket under 8 reconnecting slowloris clients: status answered in \(times)")
      stop.store(1)
      var connections = 0
      for dribbler in dribblers { connections += await dribbler.value }
      #expect(connections >= ControlProtocol.maxConnections)
    }
  }

  @Test func theRuntimeDirectoryIsChosenAsDocumented() {
    #expect(
      ControlSocketPath.serviceDirectory(
        app: "demo", environment: ["RUNTIME_DIRECTORY": "/run/demo:/run/other"], isRoot: true) == "/run/demo")
    #expect(
      ControlSocketPath.serviceDirectory(
        app: "demo", environment: ["XDG_RUNTIME_DIR": "/run/user/1000"], isRoot: false)
        == "/run/user/1000/demo")
    #expect(ControlSocketPath.serviceDirectory(app: "demo", environment: [:], isRoot: false) == "/run/demo")
    #expect(
      ControlSocketPath.serviceDirectory(
        app: "demo", environment: ["XDG_RUNTIME_DIR": "/run/user/0"], isRoot: true)
        == "/run/demo")
  }
}
