import Strata
import Testing

@testable import StrataEtcd

/// The parts of the etcd source that need no server: retry delays, value formats, and how keys
/// become a tree.
@Suite struct EtcdUnitTests {
  @Test func retryDelaysGrowAndStopAtTheMaximum() {
    let retry = EtcdRetry(initialDelay: .milliseconds(100), maximumDelay: .seconds(1), multiplier: 2)
    #expect(
      (1...6).map { retry.delay(afterFailures: $0) } == [
        .milliseconds(100), .milliseconds(200), .milliseconds(400), .milliseconds(800), .seconds(1),
        .seconds(1),
      ])
    #expect(EtcdRetry().delay(afterFailures: 1_000) == .seconds(10))
  }

  @Test func eachWaitIsTheDelayLessARandomPartOfUpToTheJitter() {
    let retry = EtcdRetry(initialDelay: .milliseconds(100), maximumDelay: .seconds(1), multiplier: 2)
    #expect(retry.jitter == 0.5)
    var generator = SplitMix(seed: 7)
    for failures in 1...6 {
      let delay = retry.delay(afterFailures: failures)
      let waits = (0..<200).map { _ in retry.wait(afterFailures: failures, using: &generator) }
      #expect(waits.allSatisfy { $0 >= delay * 0.5 && $0 <= delay }, "\(failures) failures: \(delay)")
      // Hosts that failed together spread out: the waits cover most of the range, not one instant.
      let spread = (waits.max() ?? .zero) - (waits.min() ?? .zero)
      #expect(spread >= delay * 0.4, "\(failures) failures: waits spread over \(spread) of \(delay)")
    }
    // Without jitter every host waits the whole delay, in step.
    let inStep = EtcdRetry(jitter: 0)
    #expect(
      (1...4).allSatisfy {
        inStep.wait(afterFailures: $0, using: &generator) == inStep.delay(afterFailures: $0)
      })
    // Out-of-range jitter is clamped, not trusted.
    #expect(
      EtcdRetry(jitter: 3).jitter == 1 && EtcdRetry(jitter: -1).jitter == 0
        && EtcdRetry(jitter: .nan).jitter == 0)
  }

  @Test func prefixRangeEndIsThePrefixWithItsLastByteIncremented() {
    #expect(EtcdWire.prefixRangeEnd(Array("/config/app/".utf8)) == Array("/config/app0".utf8))
    #expect(EtcdWire.prefixRangeEnd([0x61, 0xff]) == [0x62])
    #expect(EtcdWire.prefixRangeEnd([]) == [0])
  }

  @Test func keysBelowThePrefixBecomePathsWithRemoteOrigins() {
    var tree = EtcdTree(prefix: Array("/p/".utf8), format: .string)
    let (root, diagnostics) = tree.build(
      [entry("/p/server/port", "8080", 7), entry("/p/server//host", "h", 8), entry("/p/a.b", "x", 9)],
      options: ParseOptions())
    #expect(root.value(at: "server.port")?.kind == .string("8080"))
    // A key with an empty name is left out with a warning, never collapsed onto another key.
    #expect(root.value(at: "server.host") == nil)
    #expect(diagnostics.count == 1 && diagnostics.first?.severity == .warning)
    #expect(diagnostics.first?.error.message.contains("'/p/server//host' has an empty name") == true)
    #expect(root.value(at: SettingKey.join(["a.b"]))?.kind == .string("x"))
    #expect(root.value(at: "server.port")?.origin.description == "etcd:/p/server/port@rev 7")
  }

  @Test func emptyNamesNeverCollapseOntoTheRealKey() {
    var tree = EtcdTree(prefix: Array("/p/".utf8), format: .string)
    let (root, diagnostics) = tree.build(
      [
        entry("/p/", "the prefix", 1), entry("/p//port", "1", 2), entry("/p/port", "2", 3),
        entry("/p/port/", "3", 4),
      ],
      options: ParseOptions())
    #expect(root.value(at: "port")?.kind == .string("2"))
    #expect(diagnostics.count == 2)
    #expect(diagnostics.allSatisfy { $0.severity == .warning && $0.error.message.contains("empty name") })
    #expect(diagnostics.compactMap(\.error.path) == ["etcd:/p//port", "etcd:/p/port/"])
  }

  @Test func aValueAndATableAtOnePathKeepTheTableWithAWarning() {
    var tree = EtcdTree(prefix: Array("/p/".utf8), format: .string)
    let (root, diagnostics) = tree.build(
      [entry("/p/server", "flat", 1), entry("/p/server/port", "1", 2)], options: ParseOptions())
    #expect(root.value(at: "server.port")?.kind == .string("1"))
    #expect(diagnostics.map(\.severity) == [.warning])
  }

  @Test func aBadValueKeepsTheKeysLastGoodValueUntilTheKeyIsDeleted() {
    var tree = EtcdTree(prefix: Array("/p/".utf8), format: .json)
    _ = tree.build([entry("/p/n", "1", 1)], options: ParseOptions())
    let (kept, errors) = tree.build([entry("/p/n", "1 2", 2)], options: ParseOptions())
    #expect(kept.value(at: "n")?.kind == .integer(1))
    #expect(kept.value(at: "n")?.origin == .remote(source: "etcd", key: "/p/n", revision: 1))
    #expect(errors.first?.error.path == "etcd:/p/n")
    #expect(errors.first?.error.message.contains("last good value is kept") == true)
    let (gone, _) = tree.build([], options: ParseOptions())
    #expect(gone.table?.isEmpty == true)
    let (fresh, again) = tree.build([entry("/p/n", "1 2", 3)], options: ParseOptions())
    #expect(fresh.value(at: "n") == nil)
    #expect(again.first?.error.message.contains("left out") == true)
  }

  @Test func jsonValuesOfEveryKindAndDocumentsOfAnyFormat() throws {
    let json = EtcdValueFormat.json
    #expect(
      try json.parse(Array("8080".utf8), path: "k", options: ParseOptions()).value.kind == .integer(8080))
    #expect(
      try json.parse(Array(" true ".utf8), path: "k", options: ParseOptions()).value.kind == .bool(true))
    #expect(
      try json.parse(Array(#"{"a": 1}"#.utf8), path: "k", options: ParseOptions()).value.table?.count == 1)
    #expect(throws: StrataError.self) {
      try json.parse(Array(#"1, "": 2"#.utf8), path: "k", options: ParseOptions())
    }
    #expect(throws: StrataError.self) { try json.parse([], path: "k", options: ParseOptions()) }
    let ini = EtcdValueFormat.document(FormatRegistry.standard.format(named: "ini")!)
    let parsed = try ini.parse(Array("[tls]\ncert = /c.pem\n".utf8), path: "k", options: ParseOptions())
    #expect(parsed.value.value(at: "tls.cert")?.kind == .string("/c.pem"))
    #expect(throws: StrataError.self) {
      try EtcdValueFormat.string.parse([0xff], path: "k", options: ParseOptions())
    }
  }

  private func entry(_ key: String, _ value: String, _ revision: Int) -> EtcdConnection.Entry {
    EtcdConnection.Entry(key: Array(key.utf8), value: Array(value.utf8), modRevision: revision)
  }
}

/// A small seeded generator (SplitMix64), so that the jitter test draws the same numbers each run.
struct SplitMix: RandomNumberGenerator {
  var state: UInt64
  init(seed: UInt64) { state = seed }
  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }
}
