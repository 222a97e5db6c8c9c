import Testing

@testable import Strata

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

struct FallbackProbeSettings: SettingsGroup {
  @Setting var port = 8080
  @Setting var host = "127.0.0.1"
}

struct FallbackReadProbeSettings: SettingsGroup {
  @Setting var port = 8080
}

struct FallbackUnreadProbeSettings: SettingsGroup {
  @Setting var port = 8080
}

struct FallbackNestedProbeSettings: SettingsGroup {
  @Setting var depth = 3
}

struct FallbackParentProbeSettings: SettingsGroup {
  @Setting var name = "parent"
  let nested = FallbackNestedProbeSettings()
}

/// A group made without a store, with no `SettingsStore.current`, reads a private store of defaults:
/// that store and (in debug builds) standard error say so.
@Suite struct FallbackStoreTests {
  @Test func aGroupMadeWithoutAStoreSaysSoInItsStoresDiagnostics() throws {
    try withTemporaryDirectory { dir in
      try write("[fallbackProbe]\nport = 9090\n", to: dir + "/etc/demo/demo.ini")
      let store = SettingsStore(app: "demo", root: dir, environment: [:])
      let orphan = FallbackProbeSettings(store: nil)
      #expect(orphan.store !== store)
      #expect(orphan.port == 8080)  // what the file says is not seen
      let warnings = orphan.store.diagnostics
      #expect(warnings.map(\.severity) == [.warning])
      #expect(warnings.first?.error.code == .misuse)
      #expect(
        warnings.first?.description
          == "warning: FallbackProbeSettings was made without a store and no SettingsStore.current, so it "
          + "reads a private in-memory store that holds only its defaults, whatever the files say; pass the "
          + "store: FallbackProbeSettings(store: store), or make it with FallbackProbeSettings(store: nil) inside "
          + "SettingsStore.$current.withValue(store) { … } (for defaults on purpose, in tests or previews: "
          + "FallbackProbeSettings(store: .inMemory()))")
      // The store the program uses is not polluted by the mistake made elsewhere.
      #expect(store.diagnostics.allSatisfy { $0.error.code != .misuse })
      #expect(FallbackProbeSettings(store: store).port == 9090)
    }
  }

  @Test func aFallbackGroupStillReadsAndWritesItsOwnStore() throws {
    let orphan = FallbackProbeSettings(store: nil)
    #expect(orphan.host == "127.0.0.1")
    #expect(orphan.$port.origin == .codeDefault)
    try orphan.$port.save(1234)
    #expect(orphan.port == 1234)
    let database = DatabaseSettings(store: nil)
    #expect(throws: StrataError.self) { try database.$url.require() }
  }

  @Test func theFirstReadWarnsOnStandardErrorOncePerClass() {
    let orphan = FallbackReadProbeSettings(store: nil)
    let unread = FallbackUnreadProbeSettings(store: nil)
    #expect(!FallbackStore.hasWarned(about: "FallbackUnreadProbeSettings"))
    #expect(orphan.port == 8080)
    #if DEBUG
      #expect(FallbackStore.hasWarned(about: "FallbackReadProbeSettings"))
      // Told once: a second instance of the class does not print again.
      #expect(!FallbackStore.firstWarning(for: "FallbackReadProbeSettings"))
    #else
      #expect(!FallbackStore.hasWarned(about: "FallbackReadProbeSettings"))
    #endif
    // A group never read is not told about: nothing wrong has been seen yet.
    #expect(!FallbackStore.hasWarned(about: "FallbackUnreadProbeSettings"))
    #expect(unread.store.fallbackGroup == "FallbackUnreadProbeSettings")
  }

  @Test func aNestedGroupMovesIntoItsParentsStoreAndIsNotAFallback() {
    let store = SettingsStore(layers: [
      CommandLineLayer(arguments: ["--fallbackParentProbe.nested.depth", "7"])
    ])
    let parent = FallbackParentProbeSettings(store: store)
    #expect(parent.nested.store === store)
    #expect(parent.nested.depth == 7)
    #expect(!FallbackStore.hasWarned(about: "FallbackNestedProbeSettings"))
    #expect(store.diagnostics.allSatisfy { $0.error.code != .misuse })
  }

  @Test func aGroupMadeInsideCurrentUsesThatStore() {
    let store = SettingsStore(layers: [CommandLineLayer(arguments: ["--fallbackProbe.port", "7070"])])
    let group = SettingsStore.$current.withValue(store) { FallbackProbeSettings(store: nil) }
    #expect(group.store === store)
    #expect(group.port == 7070)
    #expect(store.diagnostics.allSatisfy { $0.error.code != .misuse })
  }
}

/// The warning as a debug build prints it, in a process of its own.
@Suite struct FallbackStoreWarningTests {
  @Test func aDebugBuildPrintsOneLinePerClassOnStandardError() async throws {
    let run = try await Spawn.run(stressChildPath, ["fallback"], within: 60)
    #expect(run.status == 0, "\(run)")
    #expect(run.output == "ports 8080 8080 8080 8080\n")
    #if DEBUG
      #expect(
        run.errors
          == "Strata: warning: \(FallbackStore.message(for: "OrphanSettings"))\n"
          + "Strata: warning: \(FallbackStore.unboundMessage)\n", "\(run)")
    #else
      #expect(run.errors.isEmpty, "\(run)")
    #endif
  }
}
