import Foundation
import Strata
import StrataVapor
import Testing
import Vapor

@Suite struct SettingsStoreLifecycleTests {
  @Test(.timeLimit(.minutes(2))) func bootWaitsUntilTheStoreWatchesAndShutdownEndsItsLoop() async throws {
    try await SvcFixtures.withTemporaryDirectory { dir in
      let file = dir + "/app.ini"
      try SvcFixtures.write("[greeting]\nname = world\n", to: file)
      let store = SettingsStore(layers: [FileLayer(scope: .system, files: [file])])
      let app = try await Application.make(.testing)
      app.lifecycle.use(SettingsStoreLifecycle(store: store, reloadOnHangup: false))
      do {
        try await app.asyncBoot()  // returns once every file is watched
        try SvcFixtures.write("[greeting]\nname = Strata\n", to: file)
        #expect(
          await SvcFixtures.waitUntil {
            store.snapshot.root.value(at: "greeting.name")?.kind == .string("Strata")
          })
      } catch {
        try await app.asyncShutdown()
        throw error
      }
      try await app.asyncShutdown()  // returns once the loop has ended (the time limit catches a hang)
    }
  }

  /// `serveControl: true`: boot returns once the socket accepts connections, and shutdown removes it;
  /// a socket that cannot be made (a directory others may write) fails boot with the reason.
  @Test(.timeLimit(.minutes(2))) func bootServesTheControlSocketOrFailsWithItsReason() async throws {
    try await SvcFixtures.withTemporaryDirectory { dir in
      let file = dir + "/app.ini"
      try SvcFixtures.write("[greeting]\nname = world\n", to: file)
      chmod(dir, 0o700)
      let socket = dir + "/control.sock"
      let store = SettingsStore(layers: [FileLayer(scope: .system, files: [file])])
      let app = try await Application.make(.testing)
      app.lifecycle.use(
        SettingsStoreLifecycle(
          store: store, reloadOnHangup: false, serveControl: true, controlSocketPath: socket))
      do {
        try await app.asyncBoot()
        #expect(FileManager.default.fileExists(atPath: socket), "boot returned before the socket was made")
      } catch {
        try await app.asyncShutdown()
        throw error
      }
      try await app.asyncShutdown()
      #expect(!FileManager.default.fileExists(atPath: socket), "the socket was left behind")

      let open = dir + "/open"
      try FileManager.default.createDirectory(atPath: open, withIntermediateDirectories: true)
      chmod(open, 0o777)
      let refused = try await Application.make(.testing)
      refused.lifecycle.use(
        SettingsStoreLifecycle(
          store: SettingsStore(layers: [FileLayer(scope: .system, files: [file])]), reloadOnHangup: false,
          serveControl: true, controlSocketPath: open + "/control.sock"))
      var failure: (any Error)? = nil
      do {
        try await refused.asyncBoot()
      } catch {
        failure = error
      }
      try await refused.asyncShutdown()
      let shown = failure.map { "\($0)" } ?? "none"
      #expect(shown.contains(open) && shown.contains("777"), "\(shown)")
    }
  }
}
