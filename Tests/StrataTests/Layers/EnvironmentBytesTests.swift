import Foundation
import StrataPlatform
import Testing

@testable import Strata

/// A variable whose value is not UTF-8 is reported and ignored, never decoded into U+FFFD silently.
@Suite struct EnvironmentBytesTests {
  /// Runs config-dump with an environment given as raw bytes; returns (status, stdout + stderr).
  func runWithRawEnvironment(_ arguments: [String], environment: [[UInt8]]) async throws -> (Int32, String) {
    let run = try await Spawn.run(configDumpPath, arguments, rawEnvironment: environment, within: 120)
    return (run.status, run.errors + run.output)
  }

  @Test func invalidBytesInAVariableAreReportedAndIgnored() async throws {
    try await withTemporaryDirectory { dir in
      try write(#"{"db": {"password": "from-file", "user": "app"}}"#, to: dir + "/app.json")
      let environment: [[UInt8]] = [
        Array("APP_DB_PASSWORD=".utf8) + [0x70, 0xFF, 0xFE, 0x77],
        Array("APP_DB_USER=ünïcode".utf8),
      ]
      let (status, output) = try await runWithRawEnvironment(
        [dir + "/app.json", "--env-prefix", "APP", "--check"], environment: environment)
      #expect(status == 1)
      #expect(
        output.contains("env:APP_DB_PASSWORD: error: environment variable APP_DB_PASSWORD is not valid UTF-8")
      )
      #expect(!output.contains("APP_DB_USER"))
      let (_, dump) = try await runWithRawEnvironment(
        [dir + "/app.json", "--env-prefix", "APP", "--key", "db.password", "--show-secrets"],
        environment: environment)
      #expect(dump.hasSuffix("from-file\n"), "\(dump)")
      let (_, user) = try await runWithRawEnvironment(
        [dir + "/app.json", "--env-prefix", "APP", "--key", "db.user"], environment: environment)
      #expect(user.hasSuffix("ünïcode\n"), "\(user)")
    }
  }

  /// config-dump reads the environment from the C library's list, not through Foundation: the same
  /// variables, and a name given twice takes its first value, as `getenv` does.
  @Test func theRawReaderSeesWhatFoundationSeesAndTheFirstOfARepeatedName() async throws {
    #expect(RawEnvironment.variables() == ProcessInfo.processInfo.environment)
    try await withTemporaryDirectory { dir in
      try write(#"{"db": {"user": "from-file"}}"#, to: dir + "/app.json")
      let (status, output) = try await runWithRawEnvironment(
        [dir + "/app.json", "--env-prefix", "APP", "--key", "db.user"],
        environment: [Array("APP_DB_USER=first".utf8), Array("APP_DB_USER=second".utf8)])
      #expect(status == 0 && output.hasSuffix("first\n"), "\(output)")
    }
  }

  @Test func aReplacementCharacterThatWasReallyThereIsKept() {
    let snapshot = LayerStack(layers: [
      StaticLayer(
        scope: .system,
        root: SettingValue(
          .table(SettingTable([("x", SettingValue(.string("1"), origin: .codeDefault))])),
          origin: .codeDefault)),
      EnvironmentLayer(prefix: "APP", variables: ["APP_X": "a\u{FFFD}b"]),
    ]).load()
    #expect(snapshot.entry(forKey: "x")?.value.kind == .string("a\u{FFFD}b"))
    #expect(snapshot.diagnostics.isEmpty)
  }
}
