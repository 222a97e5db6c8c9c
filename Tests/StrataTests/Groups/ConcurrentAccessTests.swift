import Testing

@testable import Strata

struct PairSettings: SettingsGroup {
  @Setting var host = "h0"
  @Setting var port = 0
}

/// Many threads read while one writes; run under `swift test --sanitize=thread` too.
@Suite struct ConcurrentAccessTests {
  @Test func readersSeeWholeGenerationsWhileAWriterPublishes() async {
    let pair = PairSettings.inMemory()
    let writes = 2_000
    let done = SharedInt()
    let torn = SharedInt()
    let backwards = SharedInt()
    // Threads of their own, awaited: readers spinning on a thread of the concurrency pool would starve
    // the tests running alongside.
    await ThreadGroup.run(1 + spinningThreadCount(upTo: 8)) { worker in
      if worker == 0 {
        for i in 1...writes {
          // Both keys in one write: one generation holds host "h<i>" with port i.
          let table = SettingValue(
            .table(
              SettingTable([
                ("host", SettingValue(.string("h\(i)"), origin: .runtime)),
                ("port", SettingValue(.integer(i), origin: .runtime)),
              ])), origin: .runtime)
          try? pair.store.setRuntimeValue(table, forKey: "pair")  // nothing here is read-only
        }
        done.store(1)
        return
      }
      var lastPort = 0
      while done.load() == 0 {
        let (host, port) = pair.withConsistentSnapshot { ($0.host, $0.port) }
        if host != "h\(port)" { torn.add(1) }
        if port < lastPort { backwards.add(1) }
        lastPort = port
        _ = pair.port  // the unpinned path too
      }
    }
    #expect(pair.sectionPath == "pair")
    #expect(torn.load() == 0)
    #expect(backwards.load() == 0)
    #expect(pair.port == writes)
    #expect(pair.host == "h\(writes)")
  }

  @Test func concurrentWritersLoseNoUpdate() async throws {
    try await withTemporaryDirectory { dir in
      let store = SettingsStore(
        layers: [FileLayer(scope: .user, files: [dir + "/app.json"])], writeTarget: .file(dir + "/app.json"))
      await ThreadGroup.run(8) { worker in
        for i in 0..<10 {
          try? store.write(SettingValue(.integer(i), origin: .runtime), forKey: "w\(worker).n\(i)")
        }
      }
      let snapshot = store.snapshot
      #expect(snapshot.keys.count == 80)
      for worker in 0..<8 {
        for i in 0..<10 { #expect(snapshot.entry(forKey: "w\(worker).n\(i)")?.value.kind == .integer(i)) }
      }
    }
  }
}
