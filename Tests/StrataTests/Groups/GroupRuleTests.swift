import Foundation
import Synchronization
import Testing

@testable import Strata

/// Rules across a group's settings: a generation that breaks one is not taken by the group, which keeps
/// every running value until an edit fixes it; a group made breaking one is reported at start-up.
@Suite struct GroupRuleTests {
  struct TLSSettings: SettingsGroup {
    static var section: String { "tls" }
    @Setting var enabled = false
    @Setting var certificate: String? = nil
    @Setting var key: String? = nil
    @Setting(traits: .secret) var password = ""
    static var rules: [SettingValidation<Self>] {
      [
        SettingValidation("enabled => certificate and key set") {
          !$0.enabled || ($0.certificate != nil && $0.key != nil)
        },
        SettingValidation("a password only with a key") { $0.password.isEmpty || $0.key != nil },
      ]
    }
  }

  func poolFile(_ minimum: Int, _ maximum: Int, name: String = "pool") -> String {
    "[pool]\nminConnections = \(minimum)\nmaxConnections = \(maximum)\nname = \(name)\n"
  }

  @Test func aGroupMadeBreakingARuleIsReportedWithEveryValueItReadAndItsOrigin() throws {
    try withTemporaryDirectory { dir in
      try write(poolFile(20, 10), to: dir + "/app.ini")
      let store = SettingsStore(layers: [FileLayer(scope: .system, files: [dir + "/app.ini"])])
      let pool = RulePoolSettings(store: store)
      let error = #expect(throws: StrataError.self) { try store.requireAll() }
      #expect(
        error?.description
          == "\(dir)/app.ini:2:18: RulePoolSettings (section pool) breaks its rule 'minConnections <= "
          + "maxConnections': pool.minConnections = 20 (\(dir)/app.ini:2:18), pool.maxConnections = 10 "
          + "(\(dir)/app.ini:3:18)")
      #expect(error?.code == .invalidValue)
      #expect(
        store.diagnostics.contains { $0.severity == .error && $0.error.description == error?.description })
      // There is no running value to keep yet: the group has the values the files give.
      #expect(pool.minConnections == 20 && pool.maxConnections == 10)
      // Fixed, it is reported no more.
      try write(poolFile(5, 10), to: dir + "/app.ini")
      #expect(reloadUntilSync(store) { pool.minConnections == 5 })
      #expect(throws: Never.self) { try store.requireAll() }
      #expect(!store.diagnostics.contains { $0.severity == .error })
    }
  }

  /// `reloadUntil` for a synchronous test: reloads until `condition` holds, 10 s at most.
  func reloadUntilSync(_ store: SettingsStore, _ condition: () -> Bool) -> Bool {
    let deadline = ContinuousClock.now + .seconds(10)
    while ContinuousClock.now < deadline {
      store.reload()
      if condition() { return true }
    }
    store.reload()
    return condition()
  }

  /// A setting whose edit is rejected keeps its running value, so the rules judge that value with the
  /// others' new ones: a rejected minimum beside a new maximum below it holds the whole group.
  @Test func aRejectedValueIsJudgedAtItsRunningValue() throws {
    try withTemporaryDirectory { dir in
      try write("[pool]\nminConnections = 5\nmaxConnections = 10\n", to: dir + "/app.ini")
      let store = SettingsStore(layers: [FileLayer(scope: .system, files: [dir + "/app.ini"])])
      let pool = RulePoolSettings(store: store)
      try store.requireAll()
      try write("[pool]\nminConnections = many\nmaxConnections = 3\n", to: dir + "/app.ini")
      store.reload()
      // Published as is, the service would run 5 connections at least and 3 at most.
      #expect(pool.minConnections == 5 && pool.maxConnections == 10)
      let messages = store.diagnostics.map(\.description)
      #expect(
        messages.contains {
          $0.contains("breaks its rule 'minConnections <= maxConnections': pool.minConnections = 5")
            && $0.contains("pool.maxConnections = 3")
        }, "\(messages)")
      // A maximum that keeps the rule with the running minimum: published, the rejected value told.
      try write("[pool]\nminConnections = many\nmaxConnections = 20\n", to: dir + "/app.ini")
      store.reload()
      #expect(pool.minConnections == 5 && pool.maxConnections == 20)
      let rejected = store.diagnostics.map(\.description)
      #expect(rejected.contains { $0.contains("found \"many\"") }, "\(rejected)")
      #expect(!rejected.contains { $0.contains("breaks") }, "\(rejected)")
      // The fix of the rejected value: both new values, which keep the rule.
      try write("[pool]\nminConnections = 2\nmaxConnections = 3\n", to: dir + "/app.ini")
      store.reload()
      #expect(pool.minConnections == 2 && pool.maxConnections == 3)
      #expect(store.diagnostics.isEmpty, "\(store.diagnostics)")
    }
  }

  struct LimitSettings: SettingsGroup {
    @Setting var soft = 10
    @Setting var hard = 20
    static var rules: [SettingValidation<Self>] { [SettingValidation("soft <= hard") { $0.soft <= $0.hard }] }
  }

  struct ServerSettings: SettingsGroup {
    static var section: String { "server" }
    @Setting var port = 8080
    let limits = LimitSettings()
  }

  /// A nested group's rules are judged with its parent's: a live edit that breaks one keeps the whole
  /// outer group (the port edited beside it too), and the fix takes every new value.
  @Test func aNestedGroupsRuleHoldsTheWholeGroup() throws {
    try withTemporaryDirectory { dir in
      func file(port: Int, soft: Int, hard: Int) -> String {
        "[server]\nport = \(port)\n[server.limits]\nsoft = \(soft)\nhard = \(hard)\n"
      }
      try write(file(port: 80, soft: 1, hard: 2), to: dir + "/app.ini")
      let store = SettingsStore(layers: [FileLayer(scope: .system, files: [dir + "/app.ini"])])
      let server = ServerSettings(store: store)
      try store.requireAll()
      try write(file(port: 81, soft: 5, hard: 3), to: dir + "/app.ini")
      store.reload()
      #expect(server.port == 80 && server.limits.soft == 1 && server.limits.hard == 2)
      let held = store.diagnostics.map(\.description).first { $0.contains("breaks") }
      #expect(
        held
          == "\(dir)/app.ini:4:8: error: ServerSettings (section server) breaks its rule 'LimitSettings: soft <= hard': "
          + "server.limits.soft = 5 (\(dir)/app.ini:4:8), server.limits.hard = 3 (\(dir)/app.ini:5:8); "
          + "the group keeps its running values", "\(store.diagnostics)")
      try write(file(port: 82, soft: 3, hard: 3), to: dir + "/app.ini")
      store.reload()
      #expect(server.port == 82 && server.limits.soft == 3 && server.limits.hard == 3)
      #expect(!store.diagnostics.contains { $0.description.contains("breaks") }, "\(store.diagnostics)")
      // Made at start with a broken nested rule, the program gets the error.
      try write(file(port: 83, soft: 9, hard: 1), to: dir + "/app.ini")
      let fresh = SettingsStore(layers: [FileLayer(scope: .system, files: [dir + "/app.ini"])])
      let group = ServerSettings(store: fresh)
      #expect(throws: StrataError.self) { try fresh.requireAll() }
      _ = group
    }
  }

  @Test func aLiveEditThatBreaksARuleKeepsTheWholeGroupAndTheFixTakesEveryNewValue() throws {
    try withTemporaryDirectory { dir in
      try write(poolFile(5, 10), to: dir + "/app.ini")
      let store = SettingsStore(layers: [FileLayer(scope: .system, files: [dir + "/app.ini"])])
      let pool = RulePoolSettings(store: store)
      try store.requireAll()
      let events = Mutex<[StoreEvent]>([])
      store.observeEvents { event in events.withLock { $0.append(event) } }
      func failed() -> [String] {
        events.withLock {
          $0.compactMap { if case .failed(let error) = $0 { error.description } else { nil } }
        }
      }
      func recovered() -> [String] {
        events.withLock {
          $0.compactMap { if case .recovered(let error) = $0 { error.description } else { nil } }
        }
      }

      // Broken by a live edit that also renames the pool: the whole group keeps its running values.
      try write(poolFile(20, 10, name: "big"), to: dir + "/app.ini")
      store.reload()
      #expect(pool.minConnections == 5 && pool.maxConnections == 10 && pool.name == "pool")
      #expect(
        failed() == [
          "\(dir)/app.ini:2:18: RulePoolSettings (section pool) breaks its rule 'minConnections <= maxConnections': "
            + "pool.minConnections = 20 (\(dir)/app.ini:2:18), pool.maxConnections = 10 (\(dir)/app.ini:3:18); "
            + "the group keeps its running values"
        ])
      #expect(store.diagnostics.contains { $0.error.message.hasSuffix("the group keeps its running values") })
      // Still broken by another edit: still held, told once more (the values it read changed).
      try write(poolFile(20, 15, name: "big"), to: dir + "/app.ini")
      store.reload()
      #expect(pool.minConnections == 5 && pool.maxConnections == 10 && pool.name == "pool")
      #expect(failed().count == 2 && failed()[1].contains("pool.maxConnections = 15"))
      #expect(recovered().isEmpty)

      // Fixed by the other setting: every value the files give now, the renamed pool's too.
      try write(poolFile(20, 30, name: "big"), to: dir + "/app.ini")
      store.reload()
      #expect(pool.minConnections == 20 && pool.maxConnections == 30 && pool.name == "big")
      #expect(recovered().count == 1 && recovered()[0].contains("pool.maxConnections = 15"))
      #expect(!store.diagnostics.contains { $0.severity == .error })
      // And it keeps following edits.
      try write(poolFile(2, 3, name: "small"), to: dir + "/app.ini")
      store.reload()
      #expect(pool.minConnections == 2 && pool.maxConnections == 3 && pool.name == "small")
    }
  }

  @Test func noGenerationAReaderSeesPairsValuesThatBreakTheRule() async throws {
    try await withTemporaryDirectory { dir in
      try write(poolFile(1, 10), to: dir + "/app.ini")
      let store = SettingsStore(layers: [FileLayer(scope: .system, files: [dir + "/app.ini"])])
      let pool = RulePoolSettings(store: store)
      // Each edit, and whether it keeps the rule; a reader on a thread of its own reads both values at
      // one generation, over and over, while the edits are applied.
      let edits = (0..<200).map { step in (step % 7 + 1, step % 5 + 3) }
      let written = Set(edits.filter { $0.0 <= $0.1 }.map { [$0.0, $0.1] } + [[1, 10]])
      let done = Atomic<Bool>(false)
      let reader = OwnThread { () -> (reads: Int, bad: [[Int]]) in
        var reads = 0
        var bad: [[Int]] = []
        while !done.load(ordering: .acquiring) || reads == 0 {
          let pair = pool.withConsistentSnapshot { [$0.minConnections, $0.maxConnections] }
          reads += 1
          if pair[0] > pair[1] || !written.contains(pair), bad.count < 10 { bad.append(pair) }
        }
        return (reads, bad)
      }
      var held = 0
      for (minimum, maximum) in edits {
        try write(poolFile(minimum, maximum), to: dir + "/app.ini")
        await store.reload()
        let now = [pool.minConnections, pool.maxConnections]
        #expect(now[0] <= now[1] && written.contains(now))
        if minimum > maximum { held += 1 } else { #expect(now == [minimum, maximum]) }
      }
      done.store(true, ordering: .releasing)
      let result = await reader.value
      #expect(result.bad.isEmpty, "pairs no valid edit wrote: \(result.bad)")
      #expect(held > 50 && result.reads > 0)
    }
  }

  @Test func aRuleNamesOnlyTheValuesItReadAndASecretIsRedacted() throws {
    try withTemporaryDirectory { dir in
      try write("[tls]\nenabled = false\n", to: dir + "/app.ini")
      let store = SettingsStore(layers: [FileLayer(scope: .system, files: [dir + "/app.ini"])])
      let tls = TLSSettings(store: store)
      let events = Mutex<[StoreEvent]>([])
      store.observeEvents { event in events.withLock { $0.append(event) } }
      try write("[tls]\nenabled = true\ncertificate = a.pem\npassword = hunter2\n", to: dir + "/app.ini")
      store.reload()
      #expect(!tls.enabled && tls.password.isEmpty)
      let failed = events.withLock {
        $0.compactMap { if case .failed(let error) = $0 { error } else { nil } }
      }
      let message = try #require(failed.first?.message)
      #expect(
        message.hasPrefix(
          "TLSSettings (section tls) breaks 2 of its rules: 'enabled => certificate and key set': "))
      #expect(message.contains("tls.enabled = true (\(dir)/app.ini:2:11)"))
      #expect(message.contains("tls.key = nil (default)"))
      #expect(
        message.contains(
          "'a password only with a key': tls.key = nil (default), tls.password = <redacted> (\(dir)/app.ini:4:12)"
        ))
      #expect(!message.contains("hunter2"), "\(message)")
    }
  }

  struct OtherSettings: SettingsGroup {
    @Setting var level = 1
  }

  @Test func anEditOfAnotherGroupLeavesAHeldGroupHeldAndAReleasedGroupForgetsItsRules() throws {
    try withTemporaryDirectory { dir in
      try write(poolFile(1, 2) + "[other]\nlevel = 1\n", to: dir + "/app.ini")
      let store = SettingsStore(layers: [FileLayer(scope: .system, files: [dir + "/app.ini"])])
      var pool: RulePoolSettings? = RulePoolSettings(store: store)
      let other = OtherSettings(store: store)
      try write(poolFile(9, 2) + "[other]\nlevel = 2\n", to: dir + "/app.ini")
      store.reload()
      #expect(pool?.minConnections == 1 && other.level == 2)
      try write(poolFile(9, 2) + "[other]\nlevel = 3\n", to: dir + "/app.ini")
      store.reload()
      #expect(pool?.minConnections == 1 && other.level == 3)
      #expect(store.state.withLock { $0.rules.count == 1 && $0.brokenRules.count == 1 })
      pool = nil
      #expect(store.state.withLock { $0.rules.isEmpty && $0.brokenRules.isEmpty })
      #expect(!store.diagnostics.contains { $0.severity == .error })
    }
  }
}
