import Foundation
import Testing

@testable import Strata

/// `SettingsStore(app:root:)` and `config-dump --app --root` find the same user file.
@Suite struct UserFileTests {
  @Test(arguments: [
    (["HOME": "/root"], "/home/user/.config/app/app.json"),  // not inside the root: the tree's own home
    (["HOME": "/home/me"], "/home/me/.config/app/app.json"),
    (["HOME": "/home/me", "XDG_CONFIG_HOME": "/cfg"], "/cfg/app/app.json"),
    (["HOME": "/home/me", "XDG_CONFIG_HOME": "/nowhere"], "/home/me/.config/app/app.json"),
  ])
  func theStoreAndConfigDumpAgree(environment: [String: String], expected: String) throws {
    try withTemporaryDirectory { root in
      for home in ["/home/user/.config/app", "/home/me/.config/app", "/cfg/app"] {
        try write(#"{"who": "\#(home)"}"#, to: root + home + "/app.json")
      }
      let store = SettingsStore(app: "app", root: root, environment: environment)
      let fromStore = store.snapshot.entry(forKey: "who")?.origin.path
      #expect(fromStore == expected)
      #expect(store.writeTarget == .file(expected))
      let run = try runConfigDump(
        ["--root", root, "--app", "app", "--key", "who", "--show-origin"], environment: environment)
      #expect(run.output.hasSuffix("\t\(expected):1:9\n"), "\(run)")
      // --home and `home:` choose alike.
      let chosen = SettingsStore(app: "app", root: root, home: "/home/me", environment: environment)
      #expect(chosen.snapshot.entry(forKey: "who")?.origin.path == "/home/me/.config/app/app.json")
      let chosenRun = try runConfigDump(
        ["--root", root, "--app", "app", "--home", "/home/me", "--key", "who", "--show-origin"],
        environment: environment)
      #expect(chosenRun.output.hasSuffix("\t/home/me/.config/app/app.json:1:9\n"), "\(chosenRun)")
    }
  }
}
