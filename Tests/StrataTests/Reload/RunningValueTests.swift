import Foundation
import StrataPlatform
import Testing

@testable import Strata

struct BodySettings: SettingsGroup {
  static var section: String { "limits" }
  @Setting var maxBodyBytes = 1_048_576
  @Setting(validation: .range(1...65535)) var port = 8080
  @Setting(traits: .restartRequired) var workers = 4
  @Setting(traits: .deprecated, help: "use limits.maxBodyBytes") var maxBody = 0
  @Setting(traits: .readOnly) var build = "dev"
}

/// Reads the events a store emitted so far: everything up to a marker emitted now.
func emitted(_ iterator: inout AsyncStream<StoreEvent>.Iterator, by store: SettingsStore) async
  -> [StoreEvent]
{
  store.emit(.watcherFallback(path: "marker", message: ""))
  var events: [StoreEvent] = []
  while let event = await iterator.next() {
    if case .watcherFallback(let path, _) = event, path == "marker" { break }
    events.append(event)
  }
  return events
}

/// A live edit never silently changes what a running server does.
@Suite struct RunningValueTests {
  func store(_ dir: String) -> SettingsStore {
    SettingsStore(
      layers: [
        FileLayer(scope: .vendor, files: [dir + "/vendor.ini"]),
        FileLayer(scope: .system, files: [dir + "/app.ini"]),
        EnvironmentLayer(prefix: "APP", variables: [:]),
      ], writeTarget: .file(dir + "/app.ini"))
  }

  @Test func aBadLiveEditKeepsTheRunningValueUntilItIsFixed() async throws {
    try await withTemporaryDirectory { dir in
      try write("[limits]\nmaxBodyBytes = 100\n", to: dir + "/vendor.ini")
      try write("[limits]\nmaxBodyBytes = 2000\nport = 9000\n", to: dir + "/app.ini")
      let store = store(dir)
      let limits = BodySettings(store: store)
      var events = store.events.makeAsyncIterator()
      var changes = limits.$maxBodyBytes.changes.makeAsyncIterator()
      #expect(limits.maxBodyBytes == 2000)

      // `5x` does not convert: the running 2000 stays (not the vendor's 100, not the default).
      try write("[limits]\nmaxBodyBytes = 5x\nport = 9000\n", to: dir + "/app.ini")
      await store.reload()
      #expect(limits.maxBodyBytes == 2000)
      #expect(limits.$maxBodyBytes.origin == .file(path: dir + "/app.ini", line: 2, column: 16))
      let rejected = await emitted(&events, by: store).compactMap { event -> StrataError? in
        if case .rejected(let error) = event { return error }
        return nil
      }
      #expect(
        rejected.map(\.description) == [
          "\(dir)/app.ini:2:16: expected Int for limits.maxBodyBytes, found \"5x\"; the running value is kept"
        ])
      #expect(store.diagnostics.contains { $0.error.message.contains("found \"5x\"") })
      // The rejected value is shown as such; the running value is not listed as shadowed.
      let shadowed = limits.$maxBodyBytes.shadowed
      #expect(shadowed.map(\.value) == ["5x", "100"])
      #expect(shadowed.first?.rejection?.contains("expected Int") == true)
      #expect(shadowed.last?.rejection == nil)

      // Another bad value: a new failure; a validation failure keeps the value the same way.
      try write("[limits]\nmaxBodyBytes = 5y\nport = 70000\n", to: dir + "/app.ini")
      await store.reload()
      #expect(limits.maxBodyBytes == 2000 && limits.port == 9000)
      let second = await emitted(&events, by: store)
      #expect(second.filter { if case .rejected = $0 { true } else { false } }.count == 2)

      // Fixed: the value updates, `recovered` says so, the stream fires once.
      try write("[limits]\nmaxBodyBytes = 3000\nport = 9001\n", to: dir + "/app.ini")
      await store.reload()
      #expect(limits.maxBodyBytes == 3000 && limits.port == 9001)
      let after = await emitted(&events, by: store)
      let recovered = after.compactMap { event -> String? in
        if case .recovered(let error) = event { return error.message }
        return nil
      }
      #expect(recovered.count == 2)
      #expect(recovered.contains { $0.contains("found \"5y\"") })
      #expect(await changes.next() == 3000)
      #expect(store.diagnostics.isEmpty)
    }
  }

  @Test func atStartUpABadValueFallsBackWithTheError() throws {
    try withTemporaryDirectory { dir in
      try write("[limits]\nmaxBodyBytes = 100\n", to: dir + "/vendor.ini")
      try write("[limits]\nmaxBodyBytes = 5x\n", to: dir + "/app.ini")
      let store = store(dir)
      let limits = BodySettings(store: store)
      #expect(limits.maxBodyBytes == 100)
      #expect(
        store.diagnostics.map(\.description).contains {
          $0.hasPrefix("\(dir)/app.ini:2:16: error: expected Int for limits.maxBodyBytes")
        })
      // Still following the layers below while the start-up error stands.
      try write("[limits]\nmaxBodyBytes = 200\n", to: dir + "/vendor.ini")
      store.reload()
      #expect(limits.maxBodyBytes == 200)
    }
  }

  @Test func removingABadValueFallsBackAsAnyRemovalDoes() throws {
    try withTemporaryDirectory { dir in
      try write("[limits]\nmaxBodyBytes = 100\n", to: dir + "/vendor.ini")
      try write("[limits]\nmaxBodyBytes = 2000\n", to: dir + "/app.ini")
      let store = store(dir)
      let limits = BodySettings(store: store)
      try write("[limits]\n", to: dir + "/app.ini")
      store.reload()
      #expect(limits.maxBodyBytes == 100)
    }
  }

  @Test func aPendingRestartThatIsUndoneIsNoLongerPending() throws {
    try withTemporaryDirectory { dir in
      try write("[limits]\nworkers = 8\n", to: dir + "/app.ini")
      let store = store(dir)
      let limits = BodySettings(store: store)
      #expect(limits.workers == 8)
      try write("[limits]\nworkers = 9\n", to: dir + "/app.ini")
      store.reload()
      #expect(store.pendingRestarts.map(\.key) == ["limits.workers"])
      try write("[limits]\nworkers = 8\n", to: dir + "/app.ini")
      store.reload()
      #expect(store.pendingRestarts.isEmpty)
      #expect(limits.workers == 8)
    }
  }

  @Test func aProgramsWriteToARestartRequiredSettingIsSavedAndPending() throws {
    try withTemporaryDirectory { dir throws in
      let store = store(dir)
      let limits = BodySettings(store: store)
      #expect(limits.workers == 4)
      try limits.$workers.save(16)
      #expect(limits.workers == 4)  // running value kept
      #expect(
        store.pendingRestarts.map(\.description) == [
          "limits.workers: running 4, 16 after a restart (\(dir)/app.ini:2:11)"
        ])
      #expect(try String(contentsOfFile: dir + "/app.ini", encoding: .utf8).contains("workers = 16"))
    }
  }

  @Test func aDeprecatedSettingSetAnywhereIsWarnedAboutWithItsPosition() throws {
    try withTemporaryDirectory { dir in
      try write("[limits]\nmaxBody = 10\n", to: dir + "/app.ini")
      let store = SettingsStore(layers: [
        FileLayer(scope: .system, files: [dir + "/app.ini"]), EnvironmentLayer(prefix: "APP", variables: [:]),
      ])
      let limits = BodySettings(store: store)  // held: a released group's settings are forgotten
      #expect(
        store.diagnostics.map(\.description) == [
          "\(dir)/app.ini:2:11: warning: limits.maxBody is deprecated: use limits.maxBodyBytes"
        ])
      let fromEnvironment = SettingsStore(layers: [
        EnvironmentLayer(prefix: "APP", variables: ["APP_LIMITS_MAX_BODY": "3"])
      ])
      let fromEnvironmentLimits = BodySettings(store: fromEnvironment)
      #expect(
        fromEnvironment.diagnostics.map(\.description).contains(
          "env:APP_LIMITS_MAX_BODY: warning: limits.maxBody is deprecated: use limits.maxBodyBytes"))
      // Not set anywhere: no warning.
      let unset = SettingsStore.inMemory()
      let unsetLimits = BodySettings(store: unset)
      #expect(unset.diagnostics.isEmpty)
      withExtendedLifetime((limits, fromEnvironmentLimits, unsetLimits)) {}
    }
  }

  @Test func readOnlyHoldsOnEveryWritePath() throws {
    try withTemporaryDirectory { dir in
      let store = store(dir)
      let limits = BodySettings(store: store)
      let value = SettingValue(.string("prod"), origin: .runtime)
      #expect(throws: StrataError.self) { try store.write(value, forKey: "limits.build") }
      #expect(throws: StrataError.self) { try store.setRuntimeValue(value, forKey: "limits.build") }
      #expect(throws: StrataError.self) { try limits.$build.save("prod") }
      #expect(throws: StrataError.self) { try limits.$build.removeSaved() }
      let table = SettingValue(.table(SettingTable([("build", value)])), origin: .runtime)
      #expect(throws: StrataError.self) { try store.write(table, forKey: "limits") }
      #expect(limits.build == "dev")
      #expect(!FileManager.default.fileExists(atPath: dir + "/app.ini"))
    }
  }

  @Test func assigningTheCurrentValueWritesNothing() throws {
    try withTemporaryDirectory { dir in
      try write("[limits]\n# keep\nmaxBodyBytes = 2000\n", to: dir + "/app.ini")
      let store = store(dir)
      let limits = BodySettings(store: store)
      var before = stat()
      _ = stat(dir + "/app.ini", &before)
      let generation = store.generation
      try limits.$maxBodyBytes.save(2000)  // "2000" in the file is 2000
      try store.write(SettingValue(.string("2000"), origin: .runtime), forKey: "limits.maxBodyBytes")
      var after = stat()
      _ = stat(dir + "/app.ini", &after)
      #expect(
        after.st_ino == before.st_ino && after.modificationTime.tv_nsec == before.modificationTime.tv_nsec)
      #expect(store.generation == generation)
      try limits.$maxBodyBytes.save(2001)
      #expect(
        try String(contentsOfFile: dir + "/app.ini", encoding: .utf8)
          == "[limits]\n# keep\nmaxBodyBytes = 2001\n")
    }
  }
}
