import Foundation
import StrataPlatform
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
  func theStoreAndConfigDumpAgree(environment: [String: String], expected: String) async throws {
    try await withTemporaryDirectory { root in
      for home in ["/home/user/.config/app", "/home/me/.config/app", "/cfg/app"] {
        try write(#"{"who": "\#(home)"}"#, to: root + home + "/app.json")
      }
      let store = SettingsStore(app: "app", root: root, environment: environment)
      let fromStore = store.snapshot.entry(forKey: "who")?.origin.path
      #expect(fromStore == expected)
      #expect(store.writeTarget == .file(expected))
      let run = try await runConfigDump(
        ["--root", root, "--app", "app", "--key", "who", "--show-origin"], environment: environment)
      #expect(run.output.hasSuffix("\t\(expected):1:9\n"), "\(run)")
      // --home and `home:` choose alike.
      let chosen = SettingsStore(app: "app", root: root, home: "/home/me", environment: environment)
      #expect(chosen.snapshot.entry(forKey: "who")?.origin.path == "/home/me/.config/app/app.json")
      let chosenRun = try await runConfigDump(
        ["--root", root, "--app", "app", "--home", "/home/me", "--key", "who", "--show-origin"],
        environment: environment)
      #expect(chosenRun.output.hasSuffix("\t/home/me/.config/app/app.json:1:9\n"), "\(chosenRun)")
    }
  }
}

/// A user-layer file that another user owns is not read (as git's `safe.directory`).
@Suite struct UserFileOwnerTests {
  @Test(.enabled(if: geteuid() == 0, "only root can give a file to another user"))
  func aUserFileOwnedBySomeoneElseIsRefused() async throws {
    try await withTemporaryDirectory { root in
      try write(#"{"port": 1}"#, to: root + "/home/user/.config/app/app.json")
      #expect(chown(root + "/home/user/.config/app/app.json", 65534, 65534) == 0)
      let store = SettingsStore(app: "app", root: root, environment: ["HOME": "/home/user"])
      #expect(store.snapshot.entry(forKey: "port") == nil)
      #expect(
        store.diagnostics.map(\.description).contains {
          $0.hasPrefix("/home/user/.config/app/app.json: error: refusing a user file owned by uid 65534")
        })
      // A file named on config-dump's command line is the user's choice: read.
      let run = try await runConfigDump([root + "/home/user/.config/app/app.json", "--key", "port"])
      #expect(run.output == "1\n")
    }
  }
}
