import Foundation
import StrataPlatform
import Testing

@testable import Strata

/// Without a schema, `config-dump` knows secrets only by their names (``SecretNames``): every text it
/// prints about the vault fixture, whose secrets all have such names (or come from a Secret volume), is
/// searched for every secret value.
@Suite struct NamedSecretLeakTests {
  @Test func configDumpWithoutASchemaShowsNoSecretNamedValue() async throws {
    try await withTemporaryDirectory { root in
      let fixture = try VaultFixture(root: root)
      // `vault.pin` is secret only by its declaration, which config-dump cannot see without a schema.
      let json = VaultFixture.json(password: VaultSecrets.json, signingKey: VaultSecrets.signing)
        .replacing(#""pin": \#(VaultSecrets.invalidPin),"#, with: "")
      try write(json, to: fixture.systemJSON)
      let base = ["--root", root, "--app", "leak", "--key-per-file", "/run/secrets"]
      var survey = LeakSurvey()

      let clear = try await runConfigDump(base + ["--show-secrets"], environment: VaultSecrets.variables)
      for secret in [
        VaultSecrets.json, VaultSecrets.ini, VaultSecrets.environment, VaultSecrets.mounted,
        VaultSecrets.signing, VaultSecrets.nested, VaultSecrets.notAnInt,
      ] {
        #expect(clear.output.contains(secret), "--show-secrets hides \(secret): \(clear.output)")
      }
      let keys = clear.output.split(separator: "\n").dropFirst().compactMap { $0.split(separator: " ").first }
        .map(String.init)
      #expect(keys.count == 10, "\(clear.output)")  // with vault_pasword, an unknown variable

      var dumped = ""
      for format in DumpOptions.Format.allCases {
        for extra in [[], ["--show-origin"], ["--show-origin", "--show-shadowed"]] {
          let run = try await runConfigDump(
            base + ["--format", format.rawValue] + extra, environment: VaultSecrets.variables)
          survey.add("config-dump --format \(format) \(extra)", run.output + run.errors)
          dumped += run.output
          for key in keys + ["vault.credentials", "vault"] {
            let one = try await runConfigDump(
              base + ["--format", format.rawValue, "--key", key] + extra, environment: VaultSecrets.variables)
            survey.add("config-dump --format \(format) --key \(key) \(extra)", one.output + one.errors)
          }
        }
      }
      #expect(dumped.contains("vault.password") && dumped.contains("<redacted>"))
      #expect(dumped.contains("db.example"))  // an ordinary value stays visible
      let check = try await runConfigDump(base + ["--check"], environment: VaultSecrets.variables)
      survey.add("config-dump --check", check.output + check.errors)
      #expect(check.output.contains("duplicate key \"password\""))

      // --watch: a secret changes, then goes; another changes, then its file breaks.
      let watch = try ChildProcess(
        configDumpPath, base + ["--watch"],
        environment: VaultSecrets.variables.merging(["PATH": "/usr/bin:/bin"]) { a, _ in a })
      #expect(await watch.line(startingWith: "KEY") != nil, "\(watch.transcript)")
      try replaceFile(
        fixture.systemJSON, with: json.replacing(VaultSecrets.json, with: VaultSecrets.written))
      #expect(await watch.line(startingWith: "{\"generation\"") != nil, "\(watch.transcript)")
      try replaceFile(fixture.systemJSON, with: #"{"vault": {"host": "db.example"}}"#)
      #expect(
        await waitUntil(within: 60) { watch.outputSoFar.contains(#""key": "vault.credentials.token""#) },
        "\(watch.transcript)")
      try replaceFile(fixture.systemINI, with: "[vault]\niniToken = \"\(VaultSecrets.inBrokenINI)\\q\"\n")
      #expect(await watch.line(startingWith: "{\"error\"") != nil, "\(watch.transcript)")
      watch.send(SIGTERM)
      #expect(await watch.finish(within: 60).ending == .exited(0))
      survey.add("config-dump --watch", watch.transcript)
      #expect(watch.transcript.contains(#""key": "vault.password", "old": "<redacted>", "new": null"#))

      let leaks = survey.leaks
      #expect(
        leaks.isEmpty,
        Comment(rawValue: "\(leaks.count) texts show secrets:\n" + leaks.prefix(40).joined(separator: "\n")))
      print(
        "NamedSecretLeak: searched \(survey.texts.count) texts for \(VaultSecrets.all.count) secrets: \(leaks.count) found"
      )
    }
  }
}
