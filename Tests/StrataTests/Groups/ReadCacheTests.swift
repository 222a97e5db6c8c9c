import Testing

@testable import Strata

/// A setting of each size class the lock-free cache holds (one, two and three words with the optional's
/// tag), and one it does not (a `String`).
struct SizedSettings: SettingsGroup {
  @Setting var count = 0
  @Setting var flag = false
  @Setting var ratio = 0.0
  @Setting var limit: Int? = nil
  @Setting var timeout = Duration.seconds(0)
  @Setting var deadline: Duration? = nil
  @Setting var label = "l0"
}

struct FixedSettings: SettingsGroup {
  @Setting(traits: .restartRequired) var workers = 4
  @Setting(traits: .restartRequired) var grace = Duration.seconds(1)
}

/// A raw-value enum.
enum CacheMode: String, Codable, Sendable {
  case fast, safe
}

/// Two words of payload, each a function of the generation, so that a pair mixing two writes shows.
struct WordPair: Equatable {
  var first: Int
  var second: Int
}

/// The lock-free read cache of plain-data settings; run under `swift test --sanitize=thread` too.
@Suite struct ReadCacheTests {
  @Test func plainDataUpToThreeWordsIsLockFreeAndTheRestIsNot() {
    #expect(ReadCache<Int>.isLockFree)
    #expect(ReadCache<Bool>.isLockFree)
    #expect(ReadCache<Double?>.isLockFree)
    #expect(ReadCache<Duration>.isLockFree)
    #expect(ReadCache<Duration?>.isLockFree)
    #expect(ReadCache<WordPair>.isLockFree)
    #expect(ReadCache<CacheMode>.isLockFree)
    #expect(ReadCache<CacheMode?>.isLockFree)
    #expect(!ReadCache<String>.isLockFree)
    #expect(!ReadCache<[Int]>.isLockFree)
    #expect(!ReadCache<SIMD4<Double>>.isLockFree)  // 32 bytes
  }

  /// Readers of the raw cache while one writer publishes many generations: every pair they see is whole
  /// (the value is the one published with that generation) and generations never go backwards.
  @Test func readersNeverSeeATornOrOlderPair() async {
    await checkWholePairs(of: Int.self) { $0 &* 7 }
    await checkWholePairs(of: Int??.self) { $0 % 3 == 0 ? nil : .some($0 % 5 == 0 ? nil : $0) }
    await checkWholePairs(of: WordPair.self) { WordPair(first: $0, second: ~$0) }
    await checkWholePairs(of: Duration?.self) { $0 % 4 == 0 ? nil : .seconds($0) + .nanoseconds($0 % 1000) }
  }

  private func checkWholePairs<Value: Equatable & Sendable>(
    of type: Value.Type, _ value: @escaping @Sendable (Int) -> Value
  ) async {
    let box = CacheBox<Value>()
    let generations = 20_000
    let done = SharedInt()
    let torn = SharedInt()
    let backwards = SharedInt()
    let seen = SharedInt()
    // Threads of their own, awaited (see ConcurrentAccessTests).
    await ThreadGroup.run(1 + spinningThreadCount(upTo: 3)) { worker in
      if worker == 0 {
        for generation in 0...generations {
          box.cache.publish(generation: generation, value: value(generation))
        }
        done.store(1)
        return
      }
      var last = -1
      var finished = false
      while !finished {
        finished = done.load() == 1
        guard let entry = box.cache.entry(), entry.generation >= 0 else { continue }
        seen.add(1)
        if entry.value != value(entry.generation) { torn.add(1) }
        if entry.generation < last { backwards.add(1) }
        last = entry.generation
      }
    }
    #expect(torn.load() == 0, "\(Value.self)")
    #expect(backwards.load() == 0, "\(Value.self)")
    #expect(seen.load() > 0, "\(Value.self)")
    #expect(box.cache.entry()?.generation == generations)
    #expect(box.cache.entry()?.value == value(generations))
  }

  /// Readers of settings of every size class while a writer changes them all in one write per
  /// generation: each value read belongs to a generation at least as new as the last one read, and the
  /// final values are read once the writer stops.
  @Test func settingsOfEverySizeFollowAWriter() async {
    let sized = SizedSettings.inMemory()
    let writes = 1_000
    let done = SharedInt()
    let backwards = SharedInt()
    let inconsistent = SharedInt()
    await ThreadGroup.run(1 + spinningThreadCount(upTo: 4)) { worker in
      if worker == 0 {
        for i in 1...writes {
          let table = SettingValue(
            .table(
              SettingTable([
                ("count", SettingValue(.integer(i), origin: .runtime)),
                ("flag", SettingValue(.bool(i % 2 == 1), origin: .runtime)),
                ("ratio", SettingValue(.double(Double(i) / 2), origin: .runtime)),
                ("limit", SettingValue(.integer(i), origin: .runtime)),
                ("timeout", SettingValue(.string("\(i)s"), origin: .runtime)),
                ("deadline", SettingValue(.string("\(i)ms"), origin: .runtime)),
                ("label", SettingValue(.string("l\(i)"), origin: .runtime)),
              ])), origin: .runtime)
          try? sized.store.setRuntimeValue(table, forKey: "sized")
        }
        done.store(1)
        return
      }
      var last = 0
      while done.load() == 0 {
        // Each read is current when made; the next may only be newer.
        let count = sized.count
        let limit = sized.limit ?? 0
        let ratio = Int(sized.ratio * 2)
        let timeout = Int(sized.timeout.components.seconds)
        let deadline = sized.deadline.map { Int(($0 / .milliseconds(1)).rounded()) } ?? 0
        let read = [count, limit, ratio, timeout, deadline]
        if read.contains(where: { $0 < last }) || read != read.sorted() {
          backwards.add(1)
        }
        last = deadline
        // A pinned read is one generation for every setting.
        let pinned = sized.withConsistentSnapshot {
          ($0.count, $0.limit ?? 0, $0.flag, $0.label, $0.deadline)
        }
        if pinned.0 != pinned.1 || pinned.2 != (pinned.0 % 2 == 1) || pinned.3 != "l\(pinned.0)"
          || (pinned.0 > 0 && pinned.4 != .milliseconds(pinned.0))
        {
          inconsistent.add(1)
        }
      }
    }
    #expect(backwards.load() == 0)
    #expect(inconsistent.load() == 0)
    #expect(sized.count == writes)
    #expect(sized.flag == (writes % 2 == 1))
    #expect(sized.ratio == Double(writes) / 2)
    #expect(sized.limit == writes)
    #expect(sized.timeout == .seconds(writes))
    #expect(sized.deadline == .milliseconds(writes))
    #expect(sized.label == "l\(writes)")
  }

  @Test func aPinnedSnapshotIsReadThoughTheCacheHoldsANewerValue() throws {
    let sized = SizedSettings.inMemory()
    try sized.store.setRuntimeValue(SettingValue(.integer(1), origin: .runtime), forKey: "sized.count")
    #expect(sized.count == 1)
    let inside = try sized.withConsistentSnapshot { pinned in
      try pinned.store.setRuntimeValue(SettingValue(.integer(2), origin: .runtime), forKey: "sized.count")
      #expect(sized.$count.box.cache.load() == nil)  // a pin is active: the cache is not used
      return pinned.count
    }
    #expect(inside == 1)
    #expect(sized.count == 2)
    #expect(sized.$count.box.cache.load() == .some(2))
  }

  @Test func restartRequiredValuesAreFixedByTheFirstReadAndThenLockFree() async throws {
    let fixed = FixedSettings.inMemory()
    // Not read yet: nothing is cached lock-free, because the first read fixes the value.
    #expect(fixed.$workers.box.cache.load() == nil)
    try await fixed.store.setRuntimeValue(
      SettingValue(.integer(8), origin: .runtime), forKey: "fixed.workers")
    let reads = SharedInt()
    let wrong = SharedInt()
    await ThreadGroup.run(4) { worker in
      if worker == 0 {
        for i in 0..<200 {
          try? fixed.store.setRuntimeValue(
            SettingValue(.integer(100 + i), origin: .runtime), forKey: "fixed.workers")
        }
        return
      }
      for _ in 0..<2_000 {
        // Whichever read came first fixed 8 or a later value; every thread then reads that one.
        let first = fixed.workers
        if fixed.workers != first { wrong.add(1) }
        reads.add(1)
      }
    }
    #expect(reads.load() == 6_000)
    #expect(wrong.load() == 0)
    let running = fixed.workers
    #expect(fixed.$workers.box.cache.entry()?.generation == ReadCache<Int>.fixedGeneration)
    #expect(fixed.$workers.box.cache.load() == .some(running))
    // Pinned or not, the running value stays.
    try await fixed.store.setRuntimeValue(
      SettingValue(.integer(1), origin: .runtime), forKey: "fixed.workers")
    #expect(fixed.withConsistentSnapshot { $0.workers } == running)
    #expect(fixed.workers == running)
    #expect(fixed.store.pendingRestarts.map(\.key) == ["fixed.workers"])
    #expect(fixed.grace == .seconds(1))
  }

  @Test func aReloadThatLeavesASettingAloneIsCaughtUpByOneReadThenLockFree() throws {
    let sized = SizedSettings.inMemory()
    try sized.store.setRuntimeValue(SettingValue(.integer(3), origin: .runtime), forKey: "sized.count")
    #expect(sized.count == 3)
    let cached = sized.$count.box.cache.entry()
    let before = try #require(cached).generation
    try sized.store.setRuntimeValue(SettingValue(.string("other"), origin: .runtime), forKey: "sized.label")
    // The reload did not visit `count`: its cached value is for the older generation, so it misses.
    #expect(sized.store.generation > before)
    #expect(sized.$count.box.cache.load() == nil)
    #expect(sized.count == 3)
    #expect(sized.$count.box.cache.entry()?.generation == sized.store.generation)
    #expect(sized.$count.box.cache.load() == .some(3))
    #expect(sized.label == "other")
  }

  @Test func purgingTheCacheMakesTheNextReadResolveAgain() throws {
    let sized = SizedSettings.inMemory()
    try sized.store.setRuntimeValue(SettingValue(.integer(5), origin: .runtime), forKey: "sized.count")
    #expect(sized.count == 5)
    #expect(sized.$count.box.cache.load() == .some(5))
    sized.$count.purgeCache()
    #expect(sized.$count.box.cache.load() == nil)
    #expect(sized.count == 5)
    #expect(sized.$count.box.cache.load() == .some(5))
  }
}

/// A cache on its own, for the raw tests (writers are serialized by the test: one writer thread).
private final class CacheBox<Value>: @unchecked Sendable {
  let cache = ReadCache<Value>()
}
