import Foundation
import Testing

@testable import Strata

/// `APP_PROFILE` selects overlays above each file layer's files and drop-ins; `config-dump --profile`
/// shows them.
@Suite struct ProfileTests {
  /// A tree with a base and a staging overlay in the vendor, system and user directories.
  func makeTree(_ root: String) throws {
    try write("[server]\nport = 1\nhost = vendor\nname = vendor\n", to: root + "/usr/lib/app/app.ini")
    try write("[server]\nport = 2\n", to: root + "/usr/lib/app/app.staging.ini")
    try write("[server]\nhost = system\n", to: root + "/etc/app/app.ini")
    try write("[server]\nhost = system-staging\n", to: root + "/etc/app/app.staging.ini")
    try write("[server]\nname = drop-in\n", to: root + "/etc/app/app.conf.d/10-name.ini")
    try write("[server]\nname = staging drop-in\n", to: root + "/etc/app/app.staging.conf.d/10-name.ini")
    try write("[server]\ntimeout = 5\n", to: root + "/usr/lib/app/app.staging.conf.d/20-timeout.ini")
    try write(#"{"server": {"user": "base"}}"#, to: root + "/home/user/.config/app/app.json")
  }

  func origin(_ store: SettingsStore, _ key: String) -> String {
    guard let value = store.snapshot.entry(forKey: key)?.value else { return "absent" }
    return "\(ValueText.plain(value)) @ \(value.origin.path ?? "?"):\(position(value))"
  }

  @Test func eachOverlaySitsAboveItsBaseInItsLayerAndItsOriginNamesTheProfileFile() throws {
    try withTemporaryDirectory { root in
      try makeTree(root)
      let store = SettingsStore(app: "app", root: root, environment: ["APP_PROFILE": "staging"])
      // The vendor overlay beats the vendor file, and the system file still beats both.
      #expect(origin(store, "server.port") == "2 @ /usr/lib/app/app.staging.ini:2:8")
      #expect(origin(store, "server.host") == "system-staging @ /etc/app/app.staging.ini:2:8")
      #expect(origin(store, "server.name") == "staging drop-in @ /etc/app/app.staging.conf.d/10-name.ini:2:8")
      #expect(origin(store, "server.timeout") == "5 @ /usr/lib/app/app.staging.conf.d/20-timeout.ini:2:11")
      #expect(origin(store, "server.user") == "base @ /home/user/.config/app/app.json:1:21")
      // The variable selects files; it is not a setting, and nothing warns about it.
      #expect(store.snapshot.entry(forKey: "profile") == nil)
      #expect(store.diagnostics.isEmpty, "\(store.diagnostics)")
      // Writes still go to the user's base file.
      #expect(store.writeTarget == .file("/home/user/.config/app/app.json"))
    }
  }

  /// A profile the program chose (Vapor's `--env`) replaces the variable, which is reported when it
  /// names another one; a bad name loads no profile, with an error.
  @Test func aProfileTheProgramChoseReplacesTheVariableAndSaysSo() throws {
    try withTemporaryDirectory { root in
      try makeTree(root)
      let chosen = SettingsStore(app: "app", root: root, environment: [:], profile: "staging")
      #expect(origin(chosen, "server.port") == "2 @ /usr/lib/app/app.staging.ini:2:8")
      #expect(chosen.diagnostics.isEmpty, "\(chosen.diagnostics)")
      let same = SettingsStore(
        app: "app", root: root, environment: ["APP_PROFILE": "staging"], profile: "staging")
      #expect(same.diagnostics.isEmpty, "\(same.diagnostics)")

      let overruled = SettingsStore(
        app: "app", root: root, environment: ["APP_PROFILE": "production"], profile: "staging")
      #expect(origin(overruled, "server.port") == "2 @ /usr/lib/app/app.staging.ini:2:8")
      #expect(
        overruled.diagnostics.map(\.description) == [
          "env:APP_PROFILE: warning: environment variable APP_PROFILE=production is not used: the program "
            + "chose the profile 'staging' (Vapor's --env, or its own option)"
        ])
      // An empty choice is no profile, and says so about a variable that names one.
      let none = SettingsStore(app: "app", root: root, environment: ["APP_PROFILE": "staging"], profile: "")
      #expect(origin(none, "server.port") == "1 @ /usr/lib/app/app.ini:2:8")
      #expect(none.diagnostics.map(\.description.isEmpty) == [false])
      #expect(none.diagnostics.first?.description.contains("the program chose no profile") == true)

      let bad = SettingsStore(app: "app", root: root, environment: [:], profile: "my.env")
      #expect(origin(bad, "server.port") == "1 @ /usr/lib/app/app.ini:2:8")
      #expect(
        bad.diagnostics.map(\.description) == [
          "error: the program's profile 'my.env' is not a profile name (1 to 64 letters, digits, '-' and '_'); "
            + "no profile is loaded"
        ])
    }
  }

  @Test func withoutAProfileNoOverlayIsRead() throws {
    try withTemporaryDirectory { root in
      try makeTree(root)
      let store = SettingsStore(app: "app", root: root, environment: [:])
      // An empty variable is no profile, as an unset one.
      let empty = SettingsStore(app: "app", root: root, environment: ["APP_PROFILE": ""])
      #expect(origin(empty, "server.port") == "1 @ /usr/lib/app/app.ini:2:8")
      #expect(empty.diagnostics.isEmpty, "\(empty.diagnostics)")
      #expect(origin(store, "server.port") == "1 @ /usr/lib/app/app.ini:2:8")
      #expect(origin(store, "server.host") == "system @ /etc/app/app.ini:2:8")
      #expect(origin(store, "server.name") == "drop-in @ /etc/app/app.conf.d/10-name.ini:2:8")
      #expect(origin(store, "server.timeout") == "absent")
      // Another profile reads its own overlays only.
      try write("[server]\nport = 3\n", to: root + "/usr/lib/app/app.production.ini")
      let production = SettingsStore(app: "app", root: root, environment: ["APP_PROFILE": "production"])
      #expect(origin(production, "server.port") == "3 @ /usr/lib/app/app.production.ini:2:8")
      #expect(origin(production, "server.host") == "system @ /etc/app/app.ini:2:8")
    }
  }

  @Test(arguments: ["../etc", " ", "stag ing", "a.b", String(repeating: "p", count: 65)])
  func aValueThatIsNotAProfileNameIsAnErrorAndLoadsNoOverlay(value: String) throws {
    try withTemporaryDirectory { root in
      try makeTree(root)
      let store = SettingsStore(app: "app", root: root, environment: ["APP_PROFILE": value])
      #expect(origin(store, "server.port") == "1 @ /usr/lib/app/app.ini:2:8")
      let errors = store.diagnostics.filter { $0.severity == .error }.map(\.description)
      #expect(
        errors.count == 1 && errors[0].hasPrefix("env:APP_PROFILE: error: environment variable APP_PROFILE="))
      #expect(errors.first?.contains("is not a profile name") == true, "\(errors)")
    }
  }

  @Test func aProfileFileCreatedLaterIsReadByTheNextReload() async throws {
    try await withTemporaryDirectory { root in
      try makeTree(root)
      let store = SettingsStore(app: "app", root: root, environment: ["APP_PROFILE": "qa"])
      #expect(origin(store, "server.host") == "system @ /etc/app/app.ini:2:8")
      try write("[server]\nhost = qa\n", to: root + "/etc/app/app.qa.ini")
      #expect(await reloadUntil(store) { origin(store, "server.host") == "qa @ /etc/app/app.qa.ini:2:8" })
      // A drop-in of the profile's directory, created later, is read too.
      try write("[server]\nhost = qa drop-in\n", to: root + "/etc/app/app.qa.conf.d/50-host.ini")
      #expect(
        await reloadUntil(store) {
          origin(store, "server.host") == "qa drop-in @ /etc/app/app.qa.conf.d/50-host.ini:2:8"
        })
    }
  }

  @Test func aRunningStoreSeesAProfileOverlayCreatedAfterItStarted() async throws {
    try await withTemporaryDirectory { root in
      try makeTree(root)
      let store = SettingsStore(
        app: "app", root: root, environment: ["APP_PROFILE": "qa", "HOME": "/home/user"])
      let ready = AsyncStream<Void>.makeStream()
      let run = Task {
        await store.run(
          watcher: FileWatcher(pollInterval: .milliseconds(20)), onReady: { ready.continuation.yield() })
      }
      for await _ in ready.stream { break }
      try write("[server]\nhost = qa\n", to: root + "/etc/app/app.qa.ini")
      let deadline = ContinuousClock.now + .seconds(20)
      while ContinuousClock.now < deadline && origin(store, "server.host") != "qa @ /etc/app/app.qa.ini:2:8" {
        try await Task.sleep(for: .milliseconds(10))
      }
      run.cancel()
      await run.value
      #expect(origin(store, "server.host") == "qa @ /etc/app/app.qa.ini:2:8")
    }
  }

  @Test func configDumpShowsTheOverlaysOfTheProfileItIsGiven() async throws {
    try await withTemporaryDirectory { root in
      try makeTree(root)
      let run = try await runConfigDump(
        ["--root", root, "--app", "app", "--profile", "staging", "--key", "server.host", "--show-origin"],
        environment: ["HOME": "/home/user"])
      #expect(run.output == "system-staging\t/etc/app/app.staging.ini:2:8\n", "\(run)")
      // APP_PROFILE does the same, and --profile wins over it.
      let fromVariable = try await runConfigDump(
        ["--root", root, "--app", "app", "--key", "server.host"],
        environment: ["HOME": "/home/user", "APP_PROFILE": "staging"])
      #expect(fromVariable.output == "system-staging\n", "\(fromVariable)")
      let chosen = try await runConfigDump(
        ["--root", root, "--app", "app", "--profile", "production", "--key", "server.host"],
        environment: ["HOME": "/home/user", "APP_PROFILE": "staging"])
      #expect(chosen.output == "system\n", "\(chosen)")
      let check = try await runConfigDump(
        ["--root", root, "--app", "app", "--profile", "staging", "--check"],
        environment: ["HOME": "/home/user"])
      #expect(check.status == 0 && check.errors.isEmpty, "\(check)")
      #expect(check.output.hasPrefix("checked 8 files, 5 keys"), "\(check)")
      let refused = try await runConfigDump(["--root", root, "--app", "app", "--profile", "../x"])
      #expect(refused.status == 2)
      #expect(refused.errors.hasPrefix("config-dump: --profile takes a profile name"), "\(refused)")
      let alone = try await runConfigDump([root + "/etc/app/app.ini", "--profile", "staging"])
      #expect(alone.errors.hasPrefix("config-dump: --profile goes with --app"), "\(alone)")
    }
  }
}
