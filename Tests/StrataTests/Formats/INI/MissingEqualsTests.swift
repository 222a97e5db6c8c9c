import Testing

@testable import Strata

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

struct MissingEqualsHTTPSettings: SettingsGroup {
  static var section: String { "http" }
  @Setting var logLevel = "info"
  @Setting var quick = false
}

/// An INI line without `=` (`logLevel warning`) is a flag; when its name starts with a declared key and
/// a space or tab, the unknown-key warning asks whether `logLevel = warning` was meant.
@Suite struct MissingEqualsTests {
  /// The unknown-key warnings of `text` as `/etc/demo/demo.ini`, and the running `logLevel`.
  func warnings(for text: String, file name: String = "demo.ini") throws -> (
    warnings: [String], logLevel: String
  ) {
    try withTemporaryDirectory { dir in
      try write(text, to: dir + "/etc/demo/" + name)
      let store = SettingsStore(app: "demo", root: dir, environment: [:])
      let http = MissingEqualsHTTPSettings(store: store)
      let unknown = store.diagnostics.filter { $0.error.code == .unknownKey }.map(\.description)
      return (unknown, http.logLevel)
    }
  }

  @Test func aDeclaredKeyAndASpaceAsksForTheEqualsSign() throws {
    let (warnings, logLevel) = try warnings(for: "[http]\nquick\nlogLevel warning\n")
    #expect(
      warnings == [
        "/etc/demo/demo.ini:3:1: warning: unknown key 'http.logLevel warning': a line without '=' is read "
          + "as a flag named 'logLevel warning'; did you mean `logLevel = warning`?"
      ])
    #expect(logLevel == "info")  // the line set nothing it meant to
  }

  @Test func aTabAndIndentationAreFoundToo() throws {
    let (warnings, _) = try warnings(for: "[http]\n  logLevel\t  debug all\n")
    #expect(
      warnings == [
        "/etc/demo/demo.ini:2:3: warning: unknown key 'http.logLevel\\t  debug all': a line without '=' is "
          + "read as a flag named 'logLevel\\t  debug all'; did you mean `logLevel = debug all`?"
      ])
  }

  @Test func aFlagThatStartsWithNoDeclaredKeyGetsNoSuchHint() throws {
    let (warnings, _) = try warnings(for: "[http]\nverbose mode\nlogLevelx warning\n")
    #expect(warnings.count == 2)
    #expect(warnings.allSatisfy { !$0.contains("did you mean `") })
    #expect(warnings[0] == "/etc/demo/demo.ini:2:1: warning: unknown key 'http.verbose mode'")
  }

  @Test func aDeclaredFlagAndAWellFormedLineAreNotWarnedAbout() throws {
    let (warnings, logLevel) = try warnings(for: "[http]\nquick\nlogLevel = warning\n")
    #expect(warnings.isEmpty)
    #expect(logLevel == "warning")
  }

  @Test func aJSONNameWithASpaceIsNotTakenForAMissingEqualsSign() throws {
    let (warnings, _) = try warnings(for: #"{"http": {"logLevel warning": true}}"#, file: "demo.json")
    #expect(warnings.count == 1)
    #expect(warnings.allSatisfy { !$0.contains("did you mean `") })
  }
}

/// `config-dump --check --schema` gives the same hint.
@Suite struct MissingEqualsConfigDumpTests {
  @Test func configDumpAsksForTheEqualsSignAgainstASchema() async throws {
    try await withTemporaryDirectory { dir in
      try write("[http]\nlogLevel warning\n", to: dir + "/svc.ini")
      try write(
        #"{"type": "object", "properties": {"http": {"type": "object", "properties": "#
          + #"{"logLevel": {"type": "string", "default": "info"}}}}}"#, to: dir + "/schema.json")
      let run = try await Spawn.run(
        configDumpPath, ["--check", "--schema", dir + "/schema.json", dir + "/svc.ini"], within: 60)
      #expect(
        (run.output + run.errors).contains(
          "\(dir)/svc.ini:2:1: warning: unknown key 'http.logLevel warning': a line without '=' is read as a "
            + "flag named 'logLevel warning'; did you mean `logLevel = warning`?"), "\(run)")
    }
  }
}
