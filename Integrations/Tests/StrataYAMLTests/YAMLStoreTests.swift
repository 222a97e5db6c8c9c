import Foundation
import Strata
import StrataYAML
import Testing

/// A YAML file in a store: registered once, read by a settings group, typed as declared.
@Suite struct YAMLStoreTests {
  struct FeatureSettings: SettingsGroup {
    @Setting var enabled = false
    @Setting var port = 8080
    @Setting var name = "none"
  }

  @Test func aStoreReadsYAMLAndABoolSettingReadsYes() throws {
    let directory = FileManager.default.temporaryDirectory.path + "/strata-yaml-\(UUID().uuidString)"
    try FileManager.default.createDirectory(
      atPath: directory + "/etc/demo", withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: directory) }
    try "feature:\n  enabled: yes\n  port: 9090\n  name: on\n".write(
      toFile: directory + "/etc/demo/demo.yaml", atomically: true, encoding: .utf8)
    let formats = FormatRegistry.standard.registering(YAMLFormat())
    let store = SettingsStore(
      app: "demo", root: directory, home: directory + "/home", environment: [:], formats: formats)
    let feature = FeatureSettings(store: store)
    #expect(feature.enabled == true)
    #expect(feature.port == 9090)
    #expect(feature.name == "on")
    #expect(store.snapshot.root.value(at: "feature.port")?.origin.description == "/etc/demo/demo.yaml:3:9")
  }
}
