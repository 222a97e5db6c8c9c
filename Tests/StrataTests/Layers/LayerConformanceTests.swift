import Foundation
import Strata
import StrataTesting
import Synchronization
import Testing

/// A source that breaks the rules the kit checks: its root is not a table, and its `follow` never
/// signals.
struct RuleBreakingSource: Layer {
  let scope = Scope.system
  let name = "rule-breaking"

  func load(_ context: LoadContext) -> LayerContents {
    LayerContents(documents: [Document(path: name, root: SettingValue(.string("flat"), origin: .runtime))])
  }

  func follow(signal: @escaping @Sendable () -> Void) async {
    let (silence, keepOpen) = AsyncStream<Void>.makeStream()
    for await _ in silence {}  // listens until cancelled, and never says anything
    keepOpen.finish()
  }
}

/// A source that, once broken, reports an error that says neither where nor on which line.
final class PositionlessSource: Layer, Sendable {
  let scope = Scope.system
  let name = "positionless"
  private let broken = Mutex(false)

  /// Makes every load fail from now on.
  func breakIt() { broken.withLock { $0 = true } }

  func load(_ context: LoadContext) -> LayerContents {
    guard !broken.withLock({ $0 }) else {
      return LayerContents(diagnostics: [Diagnostic(.error, StrataError(.syntax, "something is wrong"))])
    }
    let root = SettingValue(
      .table(SettingTable([("value", SettingValue(.string("good"), origin: .runtime))])), origin: .runtime)
    return LayerContents(documents: [Document(path: name, root: root)])
  }
}

/// Strata's own sources pass the conformance kit that others run on theirs (`StrataTesting`).
@Suite struct LayerConformanceTests {
  @Test func aFileLayerConforms() async throws {
    try await withTemporaryDirectory { dir in
      let file = dir + "/app.ini"
      try write("[server]\nport = 8080\n", to: file)
      let kit = LayerConformance(
        layer: FileLayer(scope: .user, files: [file]),
        change: {
          try write("[server]\nport = 9090\n", to: file + ".new")  // an atomic rewrite, as editors save
          guard rename(file + ".new", file) == 0 else { throw CocoaError(.fileWriteUnknown) }
        },
        breakIt: { try write("[broken\n", to: file) })
      let failures = await kit.run(timeout: .seconds(shortestWaitDeadline))
      #expect(failures.isEmpty, "\(failures)")
    }
  }

  @Test func aKeyPerFileLayerConforms() async throws {
    try await withTemporaryDirectory { dir in
      try write("one", to: dir + "/token")
      let kit = LayerConformance(
        layer: KeyPerFileLayer(directory: dir), change: { try write("yes", to: dir + "/added") })
      let failures = await kit.run(timeout: .seconds(shortestWaitDeadline))
      #expect(failures.isEmpty, "\(failures)")
    }
  }

  @Test func anEnvironmentLayerConforms() async {
    let layer = EnvironmentLayer(
      prefix: "DEMO", variables: ["DEMO_SERVER_PORT": "7000"], declaredKeys: ["server.port"])
    let failures = await LayerConformance(layer: layer).run(timeout: .seconds(shortestWaitDeadline))
    #expect(failures.isEmpty, "\(failures)")
  }

  @Test func aCommandLineLayerConforms() async {
    let failures = await LayerConformance(layer: CommandLineLayer(arguments: ["--server.port", "7000"])).run(
      timeout: .seconds(shortestWaitDeadline))
    #expect(failures.isEmpty, "\(failures)")
  }

  @Test func aStaticLayerConforms() async {
    let root = SettingValue(
      .table(SettingTable([("port", SettingValue(.integer(7000), origin: .codeDefault))])),
      origin: .codeDefault)
    let failures = await LayerConformance(layer: StaticLayer(scope: .defaults, root: root)).run(
      timeout: .seconds(shortestWaitDeadline))
    #expect(failures.isEmpty, "\(failures)")
  }

  @Test(arguments: [false, true]) func aPushingSourceConforms(waits: Bool) async {
    let source = PushingSource(waits: waits)
    let failures = await LayerConformance(layer: source, change: { source.push("second") }).run(
      timeout: .seconds(shortestWaitDeadline))
    #expect(failures.isEmpty, "\(failures)")
  }

  @Test func theKitReportsASourceThatBreaksTheRules() async {
    let kit = LayerConformance(layer: RuleBreakingSource(), change: {})
    let failures = await kit.run(timeout: .seconds(2))
    #expect(
      failures.contains(
        LayerConformance.Failure(.load, "the root of document rule-breaking is a string, not a table")),
      "\(failures)")
    #expect(
      failures.contains { $0.check == .change && $0.message.hasPrefix("no reload within") }, "\(failures)")
  }

  @Test func theKitReportsAnErrorWithoutAPosition() async {
    let source = PositionlessSource()
    let failures = await LayerConformance(layer: source, breakIt: { source.breakIt() }).run(
      timeout: .seconds(5))
    #expect(
      failures.contains {
        $0.check == .error
          && $0.message.hasPrefix("once the source was broken, loading it reported errors without a path")
      }, "\(failures)")
  }
}
