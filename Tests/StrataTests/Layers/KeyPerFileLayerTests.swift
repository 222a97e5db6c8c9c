import Foundation
import Testing

@testable import Strata

/// Builds a volume as kubelet does: `..2024_x/` with the files, `..data -> ..2024_x`, `key -> ..data/key`.
func makeVolume(_ dir: String, _ files: [String: String], generation: Int) throws {
  let fm = FileManager.default
  let timestamped = "..2026_11_21_\(generation)"
  for (name, content) in files { try write(content, to: dir + "/" + timestamped + "/" + name) }
  try fm.createSymbolicLink(atPath: dir + "/..data_tmp", withDestinationPath: timestamped)
  rename(dir + "/..data_tmp", dir + "/..data")
  for name in files.keys where !fm.fileExists(atPath: dir + "/" + name) {
    try fm.createSymbolicLink(atPath: dir + "/" + name, withDestinationPath: "..data/" + name)
  }
}

@Suite struct KeyPerFileLayerTests {
  @Test func eachFileIsAKeyAndItsContentTheValue() throws {
    try withTemporaryDirectory { dir in
      try makeVolume(dir, ["password": "hunter2\n", "user": "app"], generation: 1)
      let contents = KeyPerFileLayer(directory: dir, keyPrefix: "db").load(LoadContext())
      #expect(contents.diagnostics.isEmpty)
      let document = try #require(contents.documents.first)
      #expect(document.isSecret)
      #expect(document.root.value(at: "db.password")?.kind == .string("hunter2"))
      #expect(document.root.value(at: "db.user")?.kind == .string("app"))
      #expect(
        document.root.value(at: "db.password")?.origin == .file(path: dir + "/password", line: 1, column: 1))
      #expect(document.root.table?.count == 1)  // ..data and ..2026_… are not keys
    }
  }

  @Test func aVolumeUpdateIsReadWholeEveryTime() throws {
    try withTemporaryDirectory { dir in
      try makeVolume(dir, ["token": "one"], generation: 1)
      let store = SettingsStore(layers: [KeyPerFileLayer(directory: dir)])
      #expect(store.snapshot.entry(forKey: "token")?.value.kind == .string("one"))
      for generation in 2...3 {
        try makeVolume(dir, ["token": "v\(generation)"], generation: generation)
        store.reload(paths: [dir])
        #expect(store.snapshot.entry(forKey: "token")?.value.kind == .string("v\(generation)"))
      }
      #expect(store.snapshot.secretKeys == ["token"])
    }
  }

  @Test func notUTF8IsAnErrorWithThePath() throws {
    try withTemporaryDirectory { dir in
      try Data([0xff, 0xfe]).write(to: URL(fileURLWithPath: dir + "/bad"))
      let contents = KeyPerFileLayer(directory: dir).load(LoadContext())
      #expect(contents.diagnostics.first?.description == dir + "/bad: error: the file is not UTF-8 text")
    }
  }

  @Test func configDumpRedactsSecretsUnlessAsked() async throws {
    try await withTemporaryDirectory { dir in
      try makeVolume(dir + "/secrets", ["apiToken": "hunter2"], generation: 1)
      let redacted = try await runConfigDump(["--key-per-file", dir + "/secrets", "--show-origin"])
      #expect(redacted.status == 0)
      #expect(!redacted.output.contains("hunter2"))
      #expect(redacted.output.contains("<redacted>"))
      let json = try await runConfigDump(["--key-per-file", dir + "/secrets", "--format", "json"])
      #expect(!json.output.contains("hunter2"))
      let shown = try await runConfigDump([
        "--key-per-file", dir + "/secrets", "--key", "apiToken", "--show-secrets",
      ])
      #expect(shown.output == "hunter2\n")
    }
  }
}
