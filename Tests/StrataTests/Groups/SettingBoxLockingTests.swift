import Testing

@testable import Strata

/// The read path's rule, kept by `SettingBox.withState`: whenever the box's lock is free, the lock-free
/// cache holds what the locked state says it should, after every kind of locked section, on every exit.
@Suite struct SettingBoxLockingTests {
  /// What the cache must hold for `state`, written out here independently of the box's own code.
  private func expected(_ box: SettingBox<Int>) -> (generation: Int, value: Int?) {
    box.readState { state in
      if state.isRunningValueFixed { return (ReadCache<Int>.fixedGeneration, state.value) }
      // Nothing is cached for a setting the program has not read: its first typed read must be seen.
      if box.isRestartRequired || !box.cache.isBound || !box.wasReadByProgram {
        return (ReadCache<Int>.emptyGeneration, nil)
      }
      return (state.generation, state.value)
    }
  }

  /// Whether the box's cache mirrors its state now.
  private func mirrors(_ box: SettingBox<Int>) -> Bool {
    guard let entry = box.cache.entry() else { return false }
    let wanted = expected(box)
    return entry.generation == wanted.generation && entry.value == wanted.value
  }

  @Test func everyKindOfLockedSectionLeavesTheCacheMirroringTheState() throws {
    let sized = SizedSettings.inMemory()
    let box = sized.$count.box
    #expect(mirrors(box))  // bound at init
    #expect(sized.count == 0)  // resolved by a read
    #expect(mirrors(box))
    try sized.store.setRuntimeValue(SettingValue(.integer(7), origin: .runtime), forKey: "sized.count")
    #expect(mirrors(box))  // applied by the pipeline
    try sized.store.setRuntimeValue(SettingValue(.string("x"), origin: .runtime), forKey: "sized.label")
    #expect(sized.count == 7)  // caught up without resolving
    #expect(mirrors(box))
    let stream = sized.$count.changes  // subscribed
    #expect(mirrors(box))
    sized.$count.purgeCache()
    #expect(mirrors(box))
    #expect(box.cache.load() == nil)
    #expect(sized.count == 7)
    #expect(mirrors(box))
    _ = stream
    box.finish()
    #expect(mirrors(box))
  }

  @Test func aRestartRequiredValueIsPublishedOnceItIsFixed() throws {
    let fixed = FixedSettings.inMemory()
    let box = fixed.$workers.box
    #expect(mirrors(box))
    #expect(box.cache.entry()?.generation == ReadCache<Int>.emptyGeneration)
    #expect(fixed.workers == 4)  // the first read fixes it
    #expect(mirrors(box))
    #expect(box.cache.entry()?.generation == ReadCache<Int>.fixedGeneration)
  }

  @Test func aSectionThatLeavesEarlyOrThrowsStillPublishes() {
    let sized = SizedSettings.inMemory()
    let box = sized.$count.box
    #expect(sized.count == 0)
    let cached = box.readState { $0.generation }
    #expect(box.cache.load() == .some(0))
    let error = #expect(throws: StrataError.self) {
      try box.withState { (state) throws(StrataError) in
        state.generation = -1
        state.value = 5
        throw StrataError(.invalidValue, "stopped half way")
      }
    }
    #expect(error?.message == "stopped half way")
    #expect(mirrors(box))
    #expect(box.cache.entry()?.value == 5)
    #expect(box.cache.load() == nil)  // generation -1 is no store's: the next read resolves
    box.withState { state in
      state.generation = cached
      guard state.value == 0 else { return }
      state.value = 1
    }
    #expect(mirrors(box))
    #expect(box.cache.load() == .some(5))
  }
}
