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
            store.snapshot.value(forKey: "greeting.name")?.kind == .string("Strata")
          })
      } catch {
        try await app.asyncShutdown()
        throw error
      }
      try await app.asyncShutdown()  // returns once the loop has ended (the time limit catches a hang)
    }
  }
}
