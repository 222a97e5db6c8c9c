import Foundation
import Testing

@testable import Strata

/// A write compares with what the write target itself holds, not with the merged value (as git writes
/// `user.name X` even when another scope gives X): a value that a higher layer supplies is still saved.
@Suite struct WriteTargetContentTests {
  func store(_ dir: String, above: [any Layer] = [], target: SettingsStore.WriteTarget? = nil)
    -> SettingsStore
  {
    SettingsStore(
      layers: [FileLayer(scope: .user, files: [dir + "/app.json"])] + above,
      writeTarget: target ?? .file(dir + "/app.json"))
  }

  func fileText(_ dir: String) throws -> String {
    try String(contentsOfFile: dir + "/app.json", encoding: .utf8)
  }

  @Test func aValueTheCommandLineSuppliesIsWrittenAndStaysAfterARestart() throws {
    try withTemporaryDirectory { dir in
      try write("{}", to: dir + "/app.json")
      let settings = WritableSettings(
        store: store(dir, above: [CommandLineLayer(arguments: ["--server.host", "10.0.0.1"])]))
      #expect(settings.host == "10.0.0.1")
      try settings.$host.save("10.0.0.1")
      #expect(try fileText(dir) == "{\n  \"server\": {\n    \"host\": \"10.0.0.1\"\n  }\n}\n")
      // The command line still wins meanwhile.
      #expect(settings.$host.origin == .commandLine(option: "--server.host"))
      let restarted = WritableSettings(store: store(dir))
      #expect(restarted.host == "10.0.0.1")
      #expect(restarted.$host.origin.path == dir + "/app.json")
    }
  }

  @Test func aValueTheEnvironmentSuppliesIsWritten() throws {
    try withTemporaryDirectory { dir in
      let environment = EnvironmentLayer(prefix: "APP", variables: ["APP_SERVER_PORT": "9000"])
      let settings = WritableSettings(store: store(dir, above: [environment]))
      #expect(settings.port == 9000)
      try settings.$port.save(9000)
      let reparsed = try #require(try Formats.load(path: dir + "/app.json"))
      #expect(reparsed.root.value(at: "server.port")?.kind == .integer(9000))
      #expect(WritableSettings(store: store(dir)).port == 9000)
    }
  }

  @Test func aValueTheFileHoldsAlreadyWritesNothing() throws {
    try withTemporaryDirectory { dir in
      try write(#"{"server":{"port":81}}"#, to: dir + "/app.json")
      let store = store(dir, above: [CommandLineLayer(arguments: ["--server.port", "9"])])
      let settings = WritableSettings(store: store)
      #expect(settings.port == 9)
      let generation = store.generation
      try settings.$port.save(81)
      try store.write(SettingValue(.integer(81), origin: .runtime), forKey: "server.port")
      // Not rewritten: the file keeps its own spelling, and no generation was published.
      #expect(try fileText(dir) == #"{"server":{"port":81}}"#)
      #expect(store.generation == generation)
      try settings.$port.save(82)
      #expect(try Formats.load(path: dir + "/app.json")?.root.value(at: "server.port")?.kind == .integer(82))
    }
  }

  @Test func resettingAKeyTheFileDoesNotHoldCreatesNoFile() throws {
    try withTemporaryDirectory { dir in
      let settings = WritableSettings(store: store(dir))
      try settings.$port.removeSaved()
      #expect(!FileManager.default.fileExists(atPath: dir + "/app.json"))
    }
  }

  @Test func theRuntimeLayerComparesWithItsOwnValues() throws {
    try withTemporaryDirectory { dir in
      let store = store(
        dir, above: [CommandLineLayer(arguments: ["--server.host", "h"])], target: .runtime)
      let settings = WritableSettings(store: store)
      try settings.$host.save("h")
      let runtime = try #require(store.snapshot.sources.last { $0.scope == .runtime })
      #expect(runtime.document.root.value(at: "server.host")?.kind == .string("h"))
      let generation = store.generation
      try store.write(SettingValue(.string("h"), origin: .runtime), forKey: "server.host")
      #expect(store.generation == generation)
    }
  }

  @Test func theAsyncWriteComparesWithTheFileToo() async throws {
    try await withTemporaryDirectory { dir in
      let store = store(dir, above: [CommandLineLayer(arguments: ["--server.host", "10.0.0.1"])])
      let settings = WritableSettings(store: store)
      #expect(settings.host == "10.0.0.1")
      try await store.write(SettingValue(.string("10.0.0.1"), origin: .runtime), forKey: "server.host")
      #expect(
        try Formats.load(path: dir + "/app.json")?.root.value(at: "server.host")?.kind == .string("10.0.0.1"))
      let generation = store.generation
      try await store.write(SettingValue(.string("10.0.0.1"), origin: .runtime), forKey: "server.host")
      #expect(store.generation == generation)
    }
  }
}
