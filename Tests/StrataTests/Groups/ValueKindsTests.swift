import Foundation
import Observation
import Testing

@testable import Strata

enum Level: String, Codable, Sendable { case low, high }

struct Peer: Codable, Sendable, Equatable {
  var host: String
  var port: Int
}

struct KindsSettings: SettingsGroup {
  @Setting(help: "Free text") var text = ""
  @Setting var flag = false
  @Setting var small: UInt8 = 0
  @Setting var wide: Int64 = 0
  @Setting var ratio = 0.0
  @Setting var single: Float = 0
  @Setting var when = Date(timeIntervalSince1970: 0)
  @Setting var blob = Data()
  @Setting var link = URL(string: "https://default.invalid")!
  @Setting var timeout: Duration = .zero
  @Setting var maybe: Int? = nil
  @Setting var list: [String] = []
  @Setting var numbers: [Int] = []
  @Setting var table: [String: Int] = [:]
  @Setting var level: Level = .low
  @Setting var peer = Peer(host: "none", port: 0)
}

/// Each value kind, read through a typed group, from each format and from the environment.
@Suite struct ValueKindsTests {
  static let json = """
    {"kinds": {"text": "hi", "flag": true, "small": 200, "wide": 9000000000, "ratio": 0.25, "single": 1.5,
     "when": "2024-01-02T03:04:05Z", "blob": "AQID", "link": "https://example.com/x", "timeout": "1h30m",
     "maybe": 7, "list": ["a", "b"], "numbers": [1, 2], "table": {"x": 1}, "level": "high",
     "peer": {"host": "db", "port": 5432}}}
    """
  static let ini = """
    [kinds]
    text = hi
    flag = Yes
    small = 200
    wide = 9000000000
    ratio = 0.25
    single = 1.5
    when = 2024-01-02T03:04:05Z
    blob = AQID
    link = https://example.com/x
    timeout = 1h30m
    maybe = 7
    list = a, b
    numbers[] = 1
    numbers[] = 2
    level = high
    [kinds.table]
    x = 1
    [kinds.peer]
    host = db
    port = 5432
    """
  static let environment = [
    "K_KINDS_TEXT": "hi", "K_KINDS_FLAG": "on", "K_KINDS_SMALL": "200", "K_KINDS_WIDE": "9000000000",
    "K_KINDS_RATIO": "0.25", "K_KINDS_SINGLE": "1.5", "K_KINDS_WHEN": "2024-01-02T03:04:05Z",
    "K_KINDS_BLOB": "AQID",
    "K_KINDS_LINK": "https://example.com/x", "K_KINDS_TIMEOUT": "1h30m", "K_KINDS_MAYBE": "7",
    "K_KINDS_LIST": "a, b",
    "K_KINDS_NUMBERS": "1, 2", "K_KINDS_LEVEL": "high", "K_KINDS_PEER": #"{"host": "db", "port": 5432}"#,
  ]

  func check(_ kinds: KindsSettings, table: Bool = true) {
    #expect(kinds.text == "hi")
    #expect(kinds.flag == true)
    #expect(kinds.small == 200)
    #expect(kinds.wide == 9_000_000_000)
    #expect(kinds.ratio == 0.25)
    #expect(kinds.single == 1.5)
    #expect(kinds.when == Date(timeIntervalSince1970: 1_704_164_645))
    #expect(kinds.blob == Data([1, 2, 3]))
    #expect(kinds.link == URL(string: "https://example.com/x"))
    #expect(kinds.timeout == .seconds(5400))
    #expect(kinds.maybe == 7)
    #expect(kinds.list == ["a", "b"])
    #expect(kinds.numbers == [1, 2])
    if table { #expect(kinds.table == ["x": 1]) }
    #expect(kinds.level == .high)
    #expect(kinds.peer == Peer(host: "db", port: 5432))
  }

  func group(_ file: String, _ text: String) throws -> KindsSettings {
    try withTemporaryDirectory { dir in
      try write(text, to: dir + "/" + file)
      let kinds = KindsSettings(
        store: SettingsStore(layers: [FileLayer(scope: .system, files: [dir + "/" + file])]))
      #expect(kinds.store.diagnostics.isEmpty, "\(kinds.store.diagnostics)")
      return kinds
    }
  }

  @Test func fromJSON() throws { check(try group("k.json", Self.json)) }
  @Test func fromINI() throws { check(try group("k.ini", Self.ini)) }

  @Test func fromPropertyLists() throws {
    let tree = try JSONFormat().parse(Array(Self.json.utf8), path: "j", options: ParseOptions()).root
    var native = tree
    native.set(
      SettingValue(.date(Date(timeIntervalSince1970: 1_704_164_645)), origin: .codeDefault), at: "kinds.when")
    native.set(SettingValue(.data(Data([1, 2, 3])), origin: .codeDefault), at: "kinds.blob")
    let xml = String(decoding: try PropertyListFormat().serialize(native), as: UTF8.self)
    check(try group("k.plist", xml))
    try withTemporaryDirectory { dir in
      try Data(try PropertyListFormat().serializeBinary(native)).write(
        to: URL(fileURLWithPath: dir + "/b.plist"))
      check(
        KindsSettings(store: SettingsStore(layers: [FileLayer(scope: .system, files: [dir + "/b.plist"])])))
    }
  }

  @Test func fromTheEnvironment() {
    let store = SettingsStore(layers: [EnvironmentLayer(prefix: "K", variables: Self.environment)])
    let kinds = KindsSettings(store: store)
    check(kinds, table: false)
    #expect(kinds.$small.origin == .environment(variable: "K_KINDS_SMALL"))
    #expect(kinds.$small.environmentName == "K_KINDS_SMALL")
  }

  @Test func anUnknownVariableGetsADidYouMean() {
    let store = SettingsStore(layers: [EnvironmentLayer(prefix: "K", variables: ["K_KINDS_SMAL": "1"])])
    let kinds = KindsSettings(store: store)
    #expect(kinds.small == 0)
    #expect(store.diagnostics.contains { $0.error.message.hasSuffix("(did you mean K_KINDS_SMALL?)") })
  }

  @Test func theHelpTextIsReadOnTheRecord() {
    let kinds = KindsSettings.inMemory()
    #expect(kinds.$text.help == "Free text")
    #expect(kinds.$flag.help == nil)
    #expect(kinds.allSettings.first { $0.key == "kinds.text" }?.help == "Free text")
  }

  @Test func observationsSeeChanges() async throws {
    let kinds = KindsSettings.inMemory()
    let values = Observations { kinds.small }
    var iterator = values.makeAsyncIterator()
    #expect(await iterator.next() == 0)
    try await kinds.$small.save(9)
    #expect(await iterator.next() == 9)
  }

  @Test func shutdownEndsStreams() async {
    let kinds = KindsSettings.inMemory()
    var iterator = kinds.$small.values.makeAsyncIterator()
    #expect(await iterator.next() == 0)
    kinds.store.shutdown()
    #expect(await iterator.next() == nil)
  }
}
