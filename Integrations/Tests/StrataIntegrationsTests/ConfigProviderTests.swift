import Configuration
import ConfigurationTesting
import Strata
import StrataConfiguration
import Testing

/// Settings declared over the provider's store.
struct ProviderHTTPSettings: SettingsGroup {
  static var section: String { "http" }
  @Setting(traits: .restartRequired, validation: .range(0...65535)) var port = 8080
  @Setting(traits: .secret) var token = "default-token"
  @Setting var origins: [String] = []
  @Setting var banner = ""
}

@Suite struct ConfigProviderTests {
  /// swift-configuration's own conformance data, as a JSON file (bytes as base64 text).
  static let compatJSON = """
    {"string": "Hello", "int": 42, "double": 3.14, "bool": true, "bytes": "bWFnaWM=",
     "stringy": {"array": ["Hello", "World"]}, "inty": {"array": [42, 24]},
     "doubly": {"array": [3.14, 2.72]}, "booly": {"array": [true, false]},
     "byteChunky": {"array": ["bWFnaWM=", "bWFnaWMy"]},
     "other": {"string": "Other Hello", "int": 24, "double": 2.72, "bool": false, "bytes": "bWFnaWMy",
       "stringy": {"array": ["Hello", "Swift"]}, "inty": {"array": [16, 32]},
       "doubly": {"array": [0.9, 1.8]}, "booly": {"array": [false, true, true]},
       "byteChunky": {"array": ["bWFnaWM=", "bWFnaWMy", "bWFnaWM="]}}}
    """

  @Test func passesSwiftConfigurationsProviderCompatibilityTest() async throws {
    try await SvcFixtures.withTemporaryDirectory { dir in
      try SvcFixtures.write(Self.compatJSON, to: dir + "/compat.json")
      let store = SettingsStore(layers: [FileLayer(scope: .system, files: [dir + "/compat.json"])])
      #expect(store.diagnostics.isEmpty, "\(store.diagnostics)")
      try await ProviderCompatTest(provider: StrataConfigProvider(store: store)).runTest()
    }
  }

  @Test func readsLayeredValuesConvertedWithComponentsAsNames() async throws {
    try await SvcFixtures.withTemporaryDirectory { dir in
      try SvcFixtures.write("[http]\nhost = 0.0.0.0\nport = 8080\norigins = a, b\n", to: dir + "/a.ini")
      try SvcFixtures.write(#"{"a.b": {"c": 1}, "a": {"b": {"c": 2}}}"#, to: dir + "/b.json")
      let store = SettingsStore(layers: [
        FileLayer(scope: .system, files: [dir + "/a.ini", dir + "/b.json"]),
        EnvironmentLayer(prefix: "APP", variables: ["APP_HTTP_HOST": "127.0.0.2"]),
      ])
      let provider = StrataConfigProvider(store: store)
      let reader = ConfigReader(provider: provider)
      #expect(reader.string(forKey: "http.host") == "127.0.0.2")  // the environment wins
      #expect(reader.int(forKey: "http.port") == 8080)  // INI text converted
      #expect(reader.stringArray(forKey: "http.origins") == ["a", "b"])
      #expect(reader.scoped(to: "http").int(forKey: "port") == 8080)
      #expect(reader.int(forKey: "http.missing") == nil)
      #expect(reader.int(forKey: "http.host") == nil)  // does not convert
      #expect(try provider.value(forKey: ["http"], type: .string).value == nil)  // a table is not a value
      let quoted = try provider.value(forKey: AbsoluteConfigKey(["a.b", "c"]), type: .int)
      #expect(quoted == LookupResult(encodedKey: #""a.b".c"#, value: ConfigValue(.int(1), isSecret: false)))
      #expect(
        try provider.value(forKey: AbsoluteConfigKey(["a", "b", "c"]), type: .int).value?.content == .int(2))
      #expect(
        provider.origin(forKey: AbsoluteConfigKey(["http", "port"]))?.description == dir + "/a.ini:3:8")
      #expect(
        provider.origin(forKey: AbsoluteConfigKey(["http", "host"]))?.description == "env:APP_HTTP_HOST")
    }
  }

  @Test func aDeclaredSettingReadsItsRunningValueAndSecretsAreMarked() async throws {
    try await SvcFixtures.withTemporaryDirectory { dir in
      try SvcFixtures.write(
        "[http]\nport = 99999\ntoken = s3cret\nname = x\norigins = a, b\nbanner = Hello, world\n",
        to: dir + "/a.ini")
      let store = SettingsStore(layers: [FileLayer(scope: .system, files: [dir + "/a.ini"])])
      let http = ProviderHTTPSettings(store: store)
      let provider = StrataConfigProvider(store: store)
      // 99999 fails the setting's validation: the provider gives the running value, not the file's.
      #expect(http.port == 8080)
      #expect(
        try provider.value(forKey: ["http", "port"], type: .int).value
          == ConfigValue(.int(8080), isSecret: false))
      let token = try #require(try provider.value(forKey: ["http", "token"], type: .string).value)
      #expect(token == ConfigValue(.string("s3cret"), isSecret: true))
      #expect(!token.description.contains("s3cret"))
      // A snapshot holds the same values: the running port, typed arrays, text with a comma kept whole.
      let snapshot = provider.snapshot()
      #expect(try snapshot.value(forKey: ["http", "port"], type: .int).value?.content == .int(8080))
      #expect(try snapshot.value(forKey: ["http", "token"], type: .string).value?.isSecret == true)
      #expect(
        try snapshot.value(forKey: ["http", "origins"], type: .stringArray).value?.content
          == .stringArray(["a", "b"]))
      #expect(
        try snapshot.value(forKey: ["http", "banner"], type: .string).value?.content
          == .string("Hello, world"))
      #expect(try snapshot.value(forKey: ["http", "name"], type: .string).value?.content == .string("x"))
      #expect(try provider.value(forKey: ["http", "name"], type: .string).value?.isSecret == false)
      #expect(provider.origin(forKey: ["http", "port"]) == .codeDefault)  // the running value's origin
      #expect(provider.origin(forKey: ["http", "token"]) == .file(path: dir + "/a.ini", line: 3, column: 9))
    }
  }

  @Test func aSnapshotIsOneGenerationAndWatchingSeesFileEdits() async throws {
    try await SvcFixtures.withTemporaryDirectory { dir in
      let file = dir + "/a.ini"
      try SvcFixtures.write("[greeting]\nname = world\n", to: file)
      let store = SettingsStore(layers: [FileLayer(scope: .system, files: [file])])
      let provider = StrataConfigProvider(store: store)
      let before = provider.snapshot()
      let ready = SvcFixtures.Flag()
      let running = Task { await store.run(onReady: { ready.set() }) }
      defer { running.cancel() }
      #expect(await SvcFixtures.waitUntil { ready.isSet })

      let values = try await SvcFixtures.withDeadline(seconds: 60) {
        try await provider.watchValue(forKey: ["greeting", "name"], type: .string) { updates in
          var seen: [String] = []
          for await update in updates {
            guard case .string(let name) = try update.get().value?.content else { continue }
            seen.append(name)
            if seen.count == 1 { try SvcFixtures.write("[greeting]\nname = Strata\n", to: file) }
            if name == "Strata" { break }
          }
          return seen
        }
      }
      #expect(values == ["world", "Strata"])
      #expect(
        try before.value(forKey: ["greeting", "name"], type: .string).value?.content == .string("world"))

      let names = try await SvcFixtures.withDeadline(seconds: 60) {
        try await provider.watchSnapshot { updates in
          var seen: [String] = []
          for await snapshot in updates {
            guard
              case .string(let name) = try snapshot.value(forKey: ["greeting", "name"], type: .string).value?
                .content
            else { continue }
            seen.append(name)
            if seen.count == 1 { try SvcFixtures.write("[greeting]\nname = again\n", to: file) }
            if name == "again" { break }
          }
          return seen
        }
      }
      #expect(names == ["Strata", "again"])
    }
  }
}

extension SvcFixtures {
  /// Runs `body`, cancelling it and failing when it takes more than `seconds`.
  static func withDeadline<T: Sendable>(seconds: Int, _ body: @escaping @Sendable () async throws -> T)
    async throws -> T
  {
    try await withThrowingTaskGroup(of: T?.self) { group in
      group.addTask { try await body() }
      group.addTask {
        try? await Task.sleep(for: .seconds(seconds))
        return nil
      }
      defer { group.cancelAll() }
      guard let first = try await group.next(), let value = first else {
        Issue.record("no answer within \(seconds) s")
        throw CancellationError()
      }
      return value
    }
  }
}
