import Testing

@testable import Strata

/// A reload reports as changed only what changed: an edit to one file leaves every key of the others
/// unaffected, environment overrides included.
@Suite struct ChangedKeysTests {
  @Test func anEditToOneFileAffectsOnlyItsKeys() throws {
    try withTemporaryDirectory { dir in
      try write(#"{"big": {"a": 1, "b": 2}, "other": {"c": 3}}"#, to: dir + "/etc/app/app.json")
      try write("[small]\nx = 1\n", to: dir + "/etc/app/app.conf.d/10-small.ini")
      let store = SettingsStore(
        layers: [
          FileLayer(scope: .system, files: ["/etc/app/app.json"], dropInDirectory: "/etc/app/app.conf.d"),
          EnvironmentLayer(prefix: "APP", variables: ["APP_BIG_A": "5"]),
        ],
        options: ParseOptions(resolvePath: rootResolver(dir)))
      let before = store.snapshot
      try write("[small]\nx = 2\n", to: dir + "/etc/app/app.conf.d/10-small.ini")
      store.reload(paths: ["/etc/app/app.conf.d/10-small.ini"])
      let changes = store.snapshot.changes(since: before)
      #expect(changes.changedValues == ["small.x"])
      #expect(changes.affected == ["small.x", "small"])
    }
  }
}
