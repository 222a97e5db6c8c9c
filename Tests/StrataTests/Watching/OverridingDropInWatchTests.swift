import Foundation
import Testing

@testable import Strata

struct MaskedSettings: SettingsGroup {
  static var section: String { "app" }
  @Setting var feature = "off"
}

/// A system drop-in that masks or replaces a vendor drop-in of the same name, added while the store
/// runs, takes the vendor's keys away at once, as it would at the next start.
@Suite struct OverridingDropInWatchTests {
  @Test func aMaskAddedToTheSystemDirectoryWhileRunningRemovesTheVendorDropIn() async throws {
    try await withTemporaryDirectory { dir in
      let vendor = dir + "/usr/lib/app/app.conf.d"
      let system = dir + "/etc/app/app.conf.d"
      try write("[app]\nfeature = vendor\n", to: vendor + "/50-feature.ini")
      try FileManager.default.createDirectory(atPath: system, withIntermediateDirectories: true)
      let vendorLayer = FileLayer(
        scope: .vendor, files: [], dropInDirectory: vendor, overridingDropInDirectory: system)
      #expect(vendorLayer.load(LoadContext(options: ParseOptions())).paths.contains(system))
      let store = SettingsStore(
        layers: [vendorLayer, FileLayer(scope: .system, files: [], dropInDirectory: system)])
      let settings = MaskedSettings(store: store)
      #expect(settings.feature == "vendor")
      let values = settings.$feature.changes
      let (ready, readiness) = AsyncStream<Void>.makeStream()
      let running = Task {
        await store.run(
          watcher: FileWatcher(missingGracePeriod: .milliseconds(150)), onReady: { readiness.yield() })
      }
      defer { running.cancel() }
      #expect(await next(ready, within: 60) != nil)
      // systemd's mask: a same-named link to /dev/null in the overriding directory.
      try FileManager.default.createSymbolicLink(
        atPath: system + "/50-feature.ini", withDestinationPath: "/dev/null")
      #expect(await eventually(values, equals: "off", within: 60), "the masked vendor value stayed")
      // Replaced by a same-named system drop-in: the system one is read instead.
      try FileManager.default.removeItem(atPath: system + "/50-feature.ini")
      try write("[app]\nfeature = system\n", to: system + "/50-feature.ini")
      #expect(await eventually(values, equals: "system", within: 60))
      #expect(settings.feature == "system")
    }
  }
}
