import Foundation
import StrataPlatform
import Testing

@testable import Strata

/// A struct setting over the control socket: `--running` shows each field with its own origin, and an
/// override of one field (or of some fields, as a JSON object) keeps what the layers say of the others.
@Suite(.linuxOnly("the control socket's peer check")) struct ControlStructFieldTests {
  struct Flags: Codable, Sendable, Equatable {
    var banner = "welcome"
    var maxItems = 10
    var newCheckout = true
  }

  struct FeatureSettings: SettingsGroup {
    static var section: String { "features" }
    @Setting var flags = Flags()
  }

  /// A store over a main file that sets the banner and a drop-in that sets maxItems, serving its socket.
  final class Served: Sendable {
    let store: SettingsStore
    let features: FeatureSettings
    let server: ControlServer

    init(dir: String) throws {
      try write("[features.flags]\nbanner = hello\n", to: dir + "/app.ini")
      try write(#"{"features": {"flags": {"maxItems": 25}}}"#, to: dir + "/50-items.json")
      store = SettingsStore(
        layers: [
          FileLayer(scope: .system, files: [dir + "/app.ini"]),
          FileLayer(scope: .user, files: [dir + "/50-items.json"]),
        ])
      features = FeatureSettings(store: store)
      server = try store.startControl(
        at: dir + "/control.sock", clock: ManualControlClock(), mode: 0o600, environment: [:])
    }

    func ask(_ arguments: [String], in dir: String) async throws -> DumpRun {
      try await runConfigDump(["--socket", server.path] + arguments, in: dir)
    }

    deinit { server.stop() }
  }

  @Test func runningShowsEachFieldWithItsOrigin() async throws {
    try await withTemporaryDirectory { dir in
      let served = try Served(dir: dir)
      let status = try await served.ask([], in: dir)
      #expect(status.status == 0, "\(status)")
      // The table: between the header and the first list (settings never read, …).
      let table = status.output.components(separatedBy: "\n\n").dropFirst().first ?? ""
      let lines = table.split(separator: "\n").map {
        $0.split(separator: " ", omittingEmptySubsequences: true)
      }
      func row(_ key: String) -> [Substring]? { lines.first { $0.first.map(String.init) == key } }
      #expect(row("features.flags.banner")?.dropFirst().first == "hello", "\(status.output)")
      #expect(
        row("features.flags.banner")?.last.map(String.init) == dir + "/app.ini:2:10", "\(status.output)")
      #expect(
        row("features.flags.maxItems")?.last.map(String.init) == dir + "/50-items.json:1:37",
        "\(status.output)")
      #expect(row("features.flags.newCheckout")?.last == "default", "\(status.output)")
      #expect(row("features.flags") == nil, "\(status.output)")
    }
  }

  @Test func anOverrideOfOneFieldKeepsTheOthers() async throws {
    try await withTemporaryDirectory { dir in
      let served = try Served(dir: dir)
      let set = try await served.ask(["--set", "features.flags.newCheckout=false", "--for", "1m"], in: dir)
      #expect(set.status == 0, "\(set)")
      #expect(served.features.flags == Flags(banner: "hello", maxItems: 25, newCheckout: false))
      // An edit of another field while the override stands is applied; the override stays.
      try write("[features.flags]\nbanner = hi\n", to: dir + "/app.ini")
      await served.store.reload()
      #expect(served.features.flags == Flags(banner: "hi", maxItems: 25, newCheckout: false))
      #expect(try await served.ask(["--unset", "features.flags.newCheckout"], in: dir).status == 0)
      #expect(served.features.flags == Flags(banner: "hi", maxItems: 25, newCheckout: true))
      // Some fields as a JSON object: the others stay the layers'.
      let json = try await served.ask(["--set", #"features.flags={"maxItems": 3}"#, "--for", "1m"], in: dir)
      #expect(json.status == 0, "\(json)")
      #expect(served.features.flags == Flags(banner: "hi", maxItems: 3, newCheckout: true))
      // A field the struct does not have, and a value its field cannot hold: refused, nothing changes.
      let typo = try await served.ask(["--set", "features.flags.newChekout=false", "--for", "1m"], in: dir)
      #expect(typo.status == 1)
      #expect(typo.errors.contains("features.flags has no field 'newChekout'"), "\(typo)")
      #expect(typo.errors.contains("banner, maxItems, newCheckout"), "\(typo)")
      let wrong = try await served.ask(["--set", "features.flags.maxItems=many", "--for", "1m"], in: dir)
      #expect(wrong.status == 1)
      #expect(wrong.errors.contains("features.flags.maxItems"), "\(wrong)")
      #expect(served.features.flags == Flags(banner: "hi", maxItems: 3, newCheckout: true))
    }
  }
}
