import Foundation
import Testing

@testable import Strata

/// Secrets never leave the library in clear: every text it produces about a store holding secrets of
/// every kind (dumps in every format and option, descriptions, events, diagnostics, errors, the JSON
/// Schema, pending restarts, `config-dump` and its `--watch` lines) is searched for every secret value.
@Suite struct SecretLeakTests {
  @Test func noSecretValueAppearsInAnyTextTheLibraryProduces() async throws {
    try await withTemporaryDirectory { root in
      let fixture = try VaultFixture(root: root)
      let store = fixture.store
      let vault = fixture.vault
      let log = EventLog(store)
      var survey = LeakSurvey()

      // The program reads every secret: they are in use (and the restart-required one is now fixed).
      #expect(vault.password == VaultSecrets.json)
      #expect(vault.iniToken == VaultSecrets.ini)
      #expect(vault.envToken == VaultSecrets.environment)
      #expect(vault.mounted == VaultSecrets.mounted)
      #expect(vault.apiKey == 0)  // "s3cr3t-not-an-int" does not convert: the default
      #expect(vault.pin == 1_234)  // 987654321 fails validation: the default
      #expect(vault.signingKey == VaultSecrets.signing)
      #expect(vault.fallback == VaultSecrets.codeDefault)
      #expect(vault.credentials.token == VaultSecrets.nested)
      let first = store.snapshot

      // Writes: one that works, one refused by validation.
      try await vault.$password.save(VaultSecrets.written)
      #expect(vault.password == VaultSecrets.written)
      do {
        try await vault.$pin.save(VaultSecrets.invalidWrite)
        Issue.record("the invalid pin was written")
      } catch {
        survey.describe("thrown validation error", error)
      }
      // The restart-required secret changes in its file: a pending restart.
      try write(
        VaultFixture.json(password: VaultSecrets.json, signingKey: VaultSecrets.signingChanged),
        to: fixture.systemJSON)
      await store.reload()
      #expect(vault.signingKey == VaultSecrets.signing)
      #expect(store.pendingRestarts.map(\.key) == ["vault.signingKey"])
      // Broken edits: an unquoted secret in the JSON file, a bad escape inside one in the INI file.
      try write(#"{"vault": {"password": \#(VaultSecrets.inBrokenJSON)}}"#, to: fixture.systemJSON)
      try write("[vault]\niniToken = \"\(VaultSecrets.inBrokenINI)\\q\"\n", to: fixture.systemINI)
      await store.reload()
      #expect(vault.iniToken == VaultSecrets.ini)  // the last good document
      // A write over a user file that someone broke: the write is refused with the parse error.
      try write(#"{"vault": {"password": \#(VaultSecrets.inBrokenJSON)"#, to: fixture.userFile)
      do {
        try await vault.$host.save("db2.example")
        Issue.record("a broken file was written over")
      } catch {
        survey.describe("thrown write error", error)
      }
      await store.reload()

      // Events, diagnostics, pending restarts.
      // Diagnostics come first; the pending restart and the three failed reads follow as the reloads end.
      let isFailed: (StoreEvent) -> Bool = { if case .failed = $0 { true } else { false } }
      let isPending: (StoreEvent) -> Bool = { if case .pendingRestart = $0 { true } else { false } }
      let events = await log.wait { events in
        events.filter(isFailed).count >= 3 && events.contains(where: isPending)
      }
      #expect(events.filter(isFailed).count >= 3)
      #expect(events.contains(where: isPending))
      for (index, event) in events.enumerated() {
        survey.describe("event \(index)", event)
        switch event {
        case .failed(let error), .rejected(let error):
          survey.add("watch error line \(index)", WatchLines.error(error))
        default: break
        }
      }
      let diagnostics = store.diagnostics
      #expect(diagnostics.contains { $0.error.message.contains("vault.apiKey") })
      #expect(diagnostics.contains { $0.error.message.contains("vault.pin") })
      for (index, diagnostic) in diagnostics.enumerated() {
        survey.describe("diagnostic \(index)", diagnostic)
      }
      for pending in store.pendingRestarts { survey.describe("pending restart", pending) }

      // The group, its records, introspection.
      survey.describe("group", vault)
      survey.describe("record", vault.$password)
      survey.describe("record of a nested secret", vault.$credentials)
      for record in vault.allSettings {
        survey.describe("setting \(record.key)", record)
        survey.add("valueText \(record.key)", record.valueText)
      }
      survey.describe("shadowed passwords", vault.$password.shadowed)
      survey.describe("shadowed tokens", vault.$iniToken.shadowed)

      // Snapshots, dumps, watch lines, the schema.
      let snapshot = store.snapshot
      survey.describe("snapshot", snapshot)
      for format in DumpOptions.Format.allCases {
        for (origin, shadowed) in [(false, false), (true, false), (true, true)] {
          let options = DumpOptions(
            format: format, showOrigin: origin, showShadowed: shadowed, environmentPrefix: "LEAK")
          let label = "Dump \(format) origin:\(origin) shadowed:\(shadowed)"
          survey.add(label, (try? Dump.render(snapshot, options: options)) ?? "")
          for key in store.schema.secretKeys.sorted() {
            survey.add(
              label + " --key \(key)", (try? Dump.render(key: key, of: snapshot, options: options)) ?? "")
          }
        }
      }
      for line in WatchLines.changes(from: first, to: snapshot, secretKeys: store.schema.secretKeys) {
        survey.add("watch line", line)
      }
      let schema = store.schema
      survey.describe("schema", schema)
      let jsonSchema = String(
        decoding: try JSONFormat().serialize(schema.jsonSchema(title: "leak", environmentPrefix: "LEAK")),
        as: UTF8.self)
      survey.add("JSON Schema", jsonSchema)
      #expect(jsonSchema.contains("vault.password") || jsonSchema.contains("\"password\""))

      // config-dump, typed by the exported schema, in every format and option, over repaired files.
      try write(
        VaultFixture.json(password: VaultSecrets.json, signingKey: VaultSecrets.signingChanged),
        to: fixture.systemJSON)
      try write(
        "[vault]\niniToken = \(VaultSecrets.ini)\napiKey = \(VaultSecrets.notAnInt)\n", to: fixture.systemINI)
      try write(#"{"vault": {"password": "\#(VaultSecrets.written)"}}"#, to: fixture.userFile)
      let schemaPath = root + "/schema.json"
      try write(jsonSchema, to: schemaPath)
      let base = fixture.dumpArguments(schema: schemaPath)
      var dumped = ""
      for format in DumpOptions.Format.allCases {
        for extra in [[], ["--show-origin"], ["--show-origin", "--show-shadowed"]] {
          let run = try await runConfigDump(
            base + ["--format", format.rawValue] + extra, environment: VaultSecrets.variables)
          survey.add("config-dump --format \(format) \(extra)", run.output + run.errors)
          dumped += run.output
          for key in schema.secretKeys.sorted() {
            let one = try await runConfigDump(
              base + ["--format", format.rawValue, "--key", key] + extra, environment: VaultSecrets.variables)
            survey.add("config-dump --format \(format) --key \(key) \(extra)", one.output + one.errors)
          }
        }
      }
      #expect(dumped.contains("vault.password") && dumped.contains("<redacted>"))
      let check = try await runConfigDump(base + ["--check"], environment: VaultSecrets.variables)
      survey.add("config-dump --check", check.output + check.errors)
      #expect(check.output.contains("vault.apiKey"))
      try write(#"{"vault": {"password": \#(VaultSecrets.inBrokenJSON)}}"#, to: fixture.userFile)
      let broken = try await runConfigDump(base + ["--check"], environment: VaultSecrets.variables)
      survey.add("config-dump --check (a broken file)", broken.output + broken.errors)
      #expect(broken.output.contains("expected a value"))
      let typo = try await runConfigDump(
        base + ["--key", "vault.pasword"], environment: VaultSecrets.variables)
      survey.add("config-dump --key (a typo)", typo.output + typo.errors)

      // config-dump --watch: a secret changes, then its file breaks.
      try write(
        VaultFixture.json(password: VaultSecrets.json, signingKey: VaultSecrets.signing),
        to: fixture.systemJSON)
      let watch = try ChildProcess(
        configDumpPath, base + ["--watch"],
        environment: VaultSecrets.variables.merging(["PATH": "/usr/bin:/bin"]) { a, _ in a })
      // The dump is printed (the files are read); what changes from now on is reported.
      #expect(await watch.line(startingWith: "KEY") != nil, "\(watch.transcript)")
      try replaceFile(
        fixture.systemJSON,
        with: VaultFixture.json(password: VaultSecrets.json, signingKey: VaultSecrets.signingChanged))
      let changeLine = await watch.line(startingWith: "{\"generation\"")
      #expect(changeLine != nil, "\(watch.transcript)")
      try replaceFile(fixture.systemJSON, with: #"{"vault": {"password": \#(VaultSecrets.inBrokenJSON)}}"#)
      let errorLine = await watch.line(startingWith: "{\"error\"")
      #expect(errorLine != nil, "\(watch.transcript)")
      watch.send(SIGTERM)
      _ = await watch.finish(within: 30)
      survey.add("config-dump --watch", watch.transcript)

      let leaks = survey.leaks
      #expect(
        leaks.isEmpty,
        Comment(rawValue: "\(leaks.count) texts show secrets:\n" + leaks.prefix(40).joined(separator: "\n")))
      print(
        "SecretLeak: searched \(survey.texts.count) texts for \(VaultSecrets.all.count) secrets: \(leaks.count) found"
      )
    }
  }
}
