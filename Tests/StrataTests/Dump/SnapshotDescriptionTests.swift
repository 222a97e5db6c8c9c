import Testing

@testable import Strata

/// A declared secret is secret in every way a snapshot shows an entry, and a snapshot describes itself
/// with its generation, key count and entries, in bounded length.
@Suite struct SnapshotDescriptionTests {
  private func source(_ path: String, _ pairs: [(String, SettingValue.Kind)], scope: Scope = .system)
    -> Snapshot.Source
  {
    Snapshot.Source(scope: scope, document: Document(path: path, root: fileTree(path, pairs)))
  }

  /// Everything public that shows an entry or a snapshot, as text.
  private func texts(_ snapshot: Snapshot, key: String) -> [String] {
    guard let entry = snapshot.entry(forKey: key) else { return [] }
    var dumped = ""
    dump(entry, to: &dumped)
    var dumpedSnapshot = ""
    dump(snapshot, to: &dumpedSnapshot)
    return [
      "\(entry)", String(reflecting: entry), dumped, "\(snapshot)", String(reflecting: snapshot),
      dumpedSnapshot,
      entry.shadowed.map(\.description).joined(), snapshot.entries.map(String.init(reflecting:)).joined(),
    ]
  }

  @Test(arguments: [false, true])
  func aDeclaredSecretIsSecretAndNeverShown(indexFirst: Bool) {
    let snapshot = Snapshot(
      generation: 3,
      sources: [
        source("/etc/a.ini", [("db.password", .string("lower-pw-1")), ("db.user", .string("app"))]),
        source("/etc/b.ini", [("db.password", .string("upper-pw-2"))], scope: .user),
      ], secretKeys: ["db.password"])
    // Both ways an entry is found: the walk of the trees, and the flat index once built.
    if indexFirst { _ = snapshot.entries }
    let entry = snapshot.entry(forKey: "db.password")
    #expect(entry?.isSecret == true)
    #expect(entry?.shadowed.count == 1)
    #expect(snapshot.entry(forKey: "db.user")?.isSecret == false)
    for text in texts(snapshot, key: "db.password") {
      #expect(!text.contains("lower-pw-1") && !text.contains("upper-pw-2"), "\(text)")
    }
    #expect("\(entry!)" == "db.password = <redacted> (secret, /etc/b.ini:2:8)")
    var dumped = ""
    dump(entry!, to: &dumped)
    #expect(dumped.contains("<redacted> (secret, /etc/a.ini:2:8)"), "\(dumped)")
    #expect("\(snapshot.entry(forKey: "db.user")!)" == "db.user = app (/etc/a.ini:3:8)")
  }

  @Test func aSecretTableCoversTheKeysBelowIt() {
    let snapshot = Snapshot(
      generation: 1,
      sources: [source("/etc/a.ini", [("vault.role", .string("r-1")), ("port", .integer(1))])],
      secretKeys: ["vault"])
    #expect(snapshot.entry(forKey: "vault.role")?.isSecret == true)
    #expect(snapshot.entry(forKey: "port")?.isSecret == false)
    #expect(!"\(snapshot)".contains("r-1"))
  }

  @Test func aStoresDeclaredSecretIsSecretInItsSnapshot() {
    let store = SettingsStore.inMemory(fileTree("x", [("server.apiToken", .string("hunter2"))]))
    let server = ServerSettings(store: store)
    #expect(server.apiToken == "hunter2")
    let entry = store.snapshot.entry(forKey: "server.apiToken")
    #expect(entry?.isSecret == true)
    for text in texts(store.snapshot, key: "server.apiToken") {
      #expect(!text.contains("hunter2"), "\(text)")
    }
  }

  @Test func aSnapshotDescribesItsGenerationKeysAndEntries() {
    let snapshot = Snapshot(
      generation: 7,
      sources: [source("/etc/a.ini", [("server.port", .integer(8443)), ("log", .string("x"))])],
      diagnostics: [Diagnostic(.error, StrataError(.syntax, "bad", path: "/etc/c.ini", line: 1, column: 1))])
    #expect(
      "\(snapshot)" == """
        Snapshot generation 7: 2 keys, 1 error, 0 warnings
          server.port = 8443 (/etc/a.ini:2:8)
          log = x (/etc/a.ini:3:8)
        """)
    #expect("\(Snapshot.empty)" == "Snapshot generation 0: 0 keys, 0 errors, 0 warnings")
  }

  @Test func aLargeSnapshotsDescriptionIsBounded() {
    let long = String(repeating: "v", count: 10_000)
    let pairs = (0..<500).map { ("k\($0)", SettingValue.Kind.string(long)) }
    let snapshot = Snapshot(generation: 1, sources: [source("/etc/a.ini", pairs)])
    let text = "\(snapshot)"
    let lines = text.split(separator: "\n")
    #expect(lines.count == Snapshot.describedEntryLimit + 2)
    #expect(lines.last == "  … 450 more keys")
    #expect(lines.allSatisfy { $0.count < Snapshot.describedValueLimit + 40 })
    #expect(lines[1].contains("…"))
  }
}
