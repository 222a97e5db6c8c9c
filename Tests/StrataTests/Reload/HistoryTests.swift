import Foundation
import Synchronization
import Testing

@testable import Strata

/// The configuration history: each generation's changes of running values, with their cause, appended
/// to the app's state directory while its store runs, read back after a restart, bounded, without a
/// secret in it.
@Suite struct HistoryTests {
  struct DatabaseSettings: SettingsGroup {
    @Setting var host = "localhost"
    @Setting var port = 5432
    @Setting(traits: .secret) var password = ""
  }

  /// Runs an app's store over `home` (its user file) with its state in `state`, calls `body` once it
  /// watches, then ends the run (which writes what is queued).
  func running(
    home: String, state: String, variables: [String: String] = [:],
    _ body: (SettingsStore, DatabaseSettings) async throws -> Void
  ) async throws {
    let environment = ["HOME": home, "STATE_DIRECTORY": state].merging(variables) { $1 }
    let store = SettingsStore(app: "histapp", environment: environment)
    let database = DatabaseSettings(store: store)
    let ready = AsyncStream<Void>.makeStream()
    let run = Task { await store.run(onReady: { ready.continuation.yield() }) }
    for await _ in ready.stream { break }
    do {
      try await body(store, database)
    } catch {
      run.cancel()
      await run.value
      throw error
    }
    run.cancel()
    await run.value
  }

  @Test func eachChangeIsRecordedWithItsCauseAndReadBackAfterARestartWithoutASecret() async throws {
    try await withTemporaryDirectory { dir in
      let (home, state) = (dir + "/home", dir + "/state")
      let file = home + "/.config/histapp/histapp.json"
      try write(#"{"database": {"host": "a.example", "password": "hunter2"}}"#, to: file)
      try await running(home: home, state: state) { _, database in
        try write(#"{"database": {"host": "b.example", "password": "swordfish"}}"#, to: file)
        #expect(await waitUntil(within: 10) { database.host == "b.example" })
      }
      // A restart: the history of the run before is still there, and this run's follows it.
      try await running(home: home, state: state, variables: ["HISTAPP_DATABASE_PORT": "6543"]) {
        _, database in
        try write(#"{"database": {"password": "swordfish"}}"#, to: file)
        #expect(await waitUntil(within: 10) { database.host == "localhost" })
      }
      let entries = HistoryJournal.read(directory: state)
      #expect(entries.map(\.event) == ["start", "change", "start", "change"], "\(entries)")
      let first = try #require(entries.dropFirst().first?.changes)
      #expect(
        first.contains(
          HistoryEntry.Change(
            key: "database.host", old: "a.example", new: "b.example", origin: file + ":1:23", cause: "file")),
        "\(first)")
      #expect(
        first.contains { $0.key == "database.password" && $0.old == "<redacted>" && $0.new == "<redacted>" })
      let second = try #require(entries.last?.changes)
      #expect(second.map(\.key) == ["database.host"] && second.first?.cause == "removed", "\(second)")
      #expect(second.first?.old == "b.example" && second.first?.new == nil)
      // Generations grow within a run; a start names the generation it began with.
      #expect(entries[1].generation > entries[0].generation)
      // No secret is written.
      let text = try String(contentsOfFile: state + "/history.jsonl", encoding: .utf8)
      #expect(!text.contains("hunter2") && !text.contains("swordfish"))
      // config-dump reads it, with --since too.
      let run = try await runConfigDump(
        ["--running", "histapp", "--history"], environment: ["STATE_DIRECTORY": state])
      #expect(run.status == 0, "\(run)")
      #expect(run.output.hasPrefix("histapp: configuration history (\(state))\n"), "\(run)")
      #expect(run.output.contains("  database.host: a.example -> b.example  \(file):1:23 (file)\n"), "\(run)")
      #expect(run.output.contains(": the service started\n"))
      let recent = try await runConfigDump(
        ["--running", "histapp", "--history", "--since", "1h", "--format", "json"],
        environment: ["STATE_DIRECTORY": state])
      let decoded = try JSONDecoder().decode([HistoryEntry].self, from: Data(recent.output.utf8))
      #expect(decoded == entries)
      let none = try await runConfigDump(
        ["--running", "histapp", "--history"], environment: ["STATE_DIRECTORY": dir + "/nowhere"])
      #expect(
        none.status == 1 && none.errors.hasPrefix("config-dump: no history of histapp in \(dir)/nowhere"))
      let misuse = try await runConfigDump(["--running", "histapp", "--since", "1h"])
      #expect(misuse.status == 2 && misuse.errors.hasPrefix("config-dump: --since goes with --history"))
    }
  }

  /// `--pid` and `--socket` name a process, not an app: the running service says where it writes.
  @Test func aRunningServiceNamedByItsSocketSaysWhereItsHistoryIs() async throws {
    try await withTemporaryDirectory { dir in
      let (home, state) = (dir + "/home", dir + "/state")
      let file = home + "/.config/histapp/histapp.json"
      try write(#"{"database": {"host": "a.example"}}"#, to: file)
      try await running(home: home, state: state) { store, database in
        let control = try store.startControl(
          at: dir + "/control.sock", clock: ManualControlClock(), mode: 0o600, environment: [:])
        defer { control.stop() }
        try write(#"{"database": {"host": "b.example"}}"#, to: file)
        #expect(await waitUntil(within: 10) { database.host == "b.example" })
        // The journal's writer thread may still hold the entry: wait until the file has it.
        #expect(await waitUntil(within: 10) { HistoryJournal.read(directory: state).count == 2 })
        // config-dump's own STATE_DIRECTORY is not the service's: the service's answer decides.
        let run = try await runConfigDump(
          ["--socket", control.path, "--history"], environment: ["STATE_DIRECTORY": dir + "/elsewhere"])
        #expect(run.status == 0, "\(run)")
        #expect(run.output.hasPrefix("histapp: configuration history (\(state))\n"), "\(run)")
        #expect(
          run.output.contains("  database.host: a.example -> b.example  \(file):1:23 (file)\n"), "\(run)")
      }
      // A store without an app writes no history, and says so.
      let plain = SettingsStore(layers: [FileLayer(scope: .system, files: [file])])
      let control = try plain.startControl(
        at: dir + "/plain.sock", clock: ManualControlClock(), mode: 0o600, environment: [:])
      defer { control.stop() }
      let none = try await runConfigDump(["--socket", control.path, "--history"])
      #expect(none.status == 1 && none.errors.contains("writes no history"), "\(none)")
    }
  }

  /// Runs `histapp` once: healthy, then an edit of the host and the password after which the service
  /// turns unhealthy, so that both are rolled back.
  func rollBack(home: String, state: String, file: String) async throws {
    try write("[database]\nhost = a.example\npassword = hunter2\n", to: file)
    try await running(home: home, state: state) { store, database in
      await store.noteHealth(true, window: .seconds(30))
      try write("[database]\nhost = b.example\npassword = swordfish\n", to: file)
      #expect(await waitUntil(within: 10) { database.host == "b.example" })
      await store.noteHealth(false, window: .seconds(30))
      #expect(database.host == "a.example" && database.password == "hunter2")
    }
  }

  /// A rollback stands across a restart (the state directory keeps it, without a secret's value) until
  /// an edit of its key ends it.
  @Test func aRollbackIsKeptAcrossARestartUntilAnEditEndsIt() async throws {
    try await withTemporaryDirectory { dir in
      let (home, state) = (dir + "/home", dir + "/state")
      let file = home + "/.config/histapp/histapp.ini"
      try await rollBack(home: home, state: state, file: file)
      let kept = try String(contentsOfFile: state + "/rollback.json", encoding: .utf8)
      #expect(
        kept.contains("a.example") && !kept.contains("hunter2") && !kept.contains("swordfish"), "\(kept)")
      // A restart: the rollback stands again, with the healthy value's origin; the secret's does not.
      try await running(home: home, state: state) { store, database in
        #expect(database.host == "a.example")
        #expect(database.$host.origin == .file(path: file, line: 2, column: 8))
        #expect(database.password == "swordfish")
        #expect(
          store.diagnostics.contains {
            $0.description.contains("a rollback stands (kept across a restart: ")
          },
          "\(store.diagnostics)")
        // An edit of the key ends it, and the state directory forgets it.
        try write("[database]\nhost = c.example\npassword = swordfish\n", to: file)
        #expect(await waitUntil(within: 10) { database.host == "c.example" })
        #expect(await waitUntil(within: 10) { access(state + "/rollback.json", F_OK) != 0 })
        #expect(!store.diagnostics.contains { $0.description.contains("a rollback stands") })
      }
      try await running(home: home, state: state) { _, database in #expect(database.host == "c.example") }
    }
  }

  /// An edit made while the service was down ends the rollback it left: the edit applies at the start.
  @Test func anEditWhileTheServiceWasDownEndsTheRollbackItLeft() async throws {
    try await withTemporaryDirectory { dir in
      let (home, state) = (dir + "/home", dir + "/state")
      let file = home + "/.config/histapp/histapp.ini"
      try await rollBack(home: home, state: state, file: file)
      #expect(access(state + "/rollback.json", F_OK) == 0)
      try write("[database]\nhost = d.example\npassword = swordfish\n", to: file)
      try await running(home: home, state: state) { store, database in
        #expect(database.host == "d.example")
        #expect(!store.diagnostics.contains { $0.description.contains("a rollback stands") })
      }
      #expect(access(state + "/rollback.json", F_OK) != 0)
    }
  }

  @Test func theJournalIsBoundedToTwoFilesAndKeepsTheNewestEntries() throws {
    try withTemporaryDirectory { dir in
      let journal = HistoryJournal(directory: dir + "/state", maxBytes: 4096)
      let change = HistoryEntry.Change(
        key: "server.port", old: "1", new: "2", origin: "/etc/app/app.ini:1:8", cause: "file")
      for generation in 1...2000 {
        journal.record(
          HistoryEntry(
            time: "2026-11-29T00:00:00Z", at: Double(generation), generation: generation, event: "change",
            changes: [change]))
      }
      journal.stop()
      let sizes = HistoryJournal.files(in: dir + "/state").map {
        (try? FileManager.default.attributesOfItem(atPath: $0)[.size] as? Int) ?? 0
      }
      #expect(sizes.allSatisfy { $0 > 0 && $0 <= 4096 }, "\(sizes)")
      let entries = HistoryJournal.read(directory: dir + "/state")
      // The newest entries, in order, up to the last one.
      #expect(entries.last?.generation == 2000)
      #expect(entries.count > 20 && entries.count < 200, "\(entries.count)")
      #expect(zip(entries, entries.dropFirst()).allSatisfy { $0.generation + 1 == $1.generation })
      // A record after the end is dropped, not written.
      journal.record(HistoryEntry(time: "", at: 0, generation: 2001, event: "change"))
      #expect(HistoryJournal.read(directory: dir + "/state").last?.generation == 2000)
    }
  }

  @Test func aStoreWithoutAnAppKeepsNoHistory() throws {
    let store = SettingsStore.inMemory()
    #expect(store.state.withLock { $0.historyDirectory } == nil)
    let app = SettingsStore(app: "x", root: "/nonexistent-root", environment: ["HOME": "/home/u"])
    let expected = StateDirectory.isRoot ? "/var/lib/x" : "/home/u/.local/state/x"
    #expect(app.state.withLock { $0.historyDirectory } == expected)
    #expect(
      StateDirectory.of(app: "x", environment: ["STATE_DIRECTORY": "/var/lib/x:/var/lib/y"], isRoot: false)
        == "/var/lib/x")
    #expect(
      StateDirectory.of(app: "x", environment: ["XDG_STATE_HOME": "/s", "HOME": "/h"], isRoot: false)
        == "/s/x")
    #expect(StateDirectory.of(app: "x", environment: [:], isRoot: false) == nil)
  }
}
