import Foundation
import StrataPlatform
import Testing

@testable import Strata

/// The settings nobody reads: `--running` names the declared settings the program has not read since it
/// started, and beside them the keys the files set that no setting reads.
@Suite(.linuxOnly("the control socket's peer check")) struct NeverReadTests {
  struct Limits: Codable, Sendable, Equatable {
    var burst = 10
    var rate = 1.5
  }

  struct ServerSettings: SettingsGroup {
    @Setting var port = 8080
    @Setting var host = "localhost"
    @Setting var legacyMode = false
    @Setting var banner = "hi"
    @Setting var limits = Limits()
    @Setting var timeout: Duration = .seconds(5)
  }

  /// A store over one file (with a mistyped key), serving its socket.
  final class Served: Sendable {
    let store: SettingsStore
    let server: ServerSettings
    let control: ControlServer

    init(dir: String) throws {
      try write("[server]\nport = 9000\nprot = 1\n", to: dir + "/app.ini")
      store = SettingsStore(layers: [FileLayer(scope: .system, files: [dir + "/app.ini"])])
      server = ServerSettings(store: store)
      control = try store.startControl(
        at: dir + "/control.sock", clock: ManualControlClock(), mode: 0o600, environment: [:])
    }

    func status(in dir: String) async throws -> ControlStatus {
      let run = try await runConfigDump(["--socket", control.path, "--format", "json"], in: dir)
      #expect(run.status == 0, "\(run)")
      let response = try JSONDecoder().decode(ControlResponse.self, from: Data(run.output.utf8))
      return try #require(response.status)
    }

    deinit { control.stop() }
  }

  @Test func theSettingsTheProgramHasNotReadAreNamedAndTheKeysNoSettingReadsBesideThem() async throws {
    try await withTemporaryDirectory { dir in
      let served = try Served(dir: dir)
      let server = served.server
      // What the store and the tools look at is not the program's reading.
      try served.store.requireAll()
      _ = server.$port.origin
      _ = server.$host.originDescription
      var status = try await served.status(in: dir)
      #expect(
        status.neverRead == [
          "server.port", "server.host", "server.legacyMode", "server.banner", "server.limits",
          "server.timeout",
        ])
      #expect(
        status.unknownKeys?.map(\.description) == [
          "\(dir)/app.ini:3:1: unknown key 'server.prot' (did you mean 'server.port'?)"
        ])

      // Typed reads of each kind: a value kept in the lock-free cache (Int, Bool, Duration), one behind
      // the lock (String, a struct), a record's value, and a stream of changes.
      #expect(server.port == 9000)
      #expect(server.$limits.value == Limits())
      let changes = server.$timeout.changes
      _ = changes
      status = try await served.status(in: dir)
      #expect(status.neverRead == ["server.host", "server.legacyMode", "server.banner"])
      let banner = try server.$banner.require()
      #expect(server.host == "localhost" && banner == "hi")
      status = try await served.status(in: dir)
      #expect(status.neverRead == ["server.legacyMode"])

      // The table says the same, each list under its heading.
      let table = try await runConfigDump(["--socket", served.control.path], in: dir)
      #expect(
        table.output.contains(
          "\nNever read by the program since it started:\n  server.legacyMode\n"), "\(table)")
      #expect(
        table.output.contains(
          "\nSet in the files, read by no setting:\n  \(dir)/app.ini:3:1: unknown key 'server.prot'"),
        "\(table)")

      // A read after a reload is still served, and the cache goes on serving it.
      try write("[server]\nport = 9001\n", to: dir + "/app.ini")
      #expect(await reloadUntil(served.store) { server.port == 9001 })
      status = try await served.status(in: dir)
      #expect(status.neverRead == ["server.legacyMode"] && status.unknownKeys == [])
    }
  }

  @Test func aSettingNeverReadStillFollowsEveryEditWhenItIsFinallyRead() throws {
    try withTemporaryDirectory { dir in
      try write("[server]\nport = 9000\n", to: dir + "/app.ini")
      let store = SettingsStore(layers: [FileLayer(scope: .system, files: [dir + "/app.ini"])])
      let server = ServerSettings(store: store)
      for port in 9001...9005 {
        try write("[server]\nport = \(port)\n", to: dir + "/app.ini")
        store.reload()
      }
      let port = server.$port
      #expect(!port.box.wasReadByProgram)
      #expect(server.port == 9005 && port.box.wasReadByProgram)
      // Once read, the lock-free cache holds the value for the current generation.
      #expect(port.box.cache.load() == .some(9005))
    }
  }
}
