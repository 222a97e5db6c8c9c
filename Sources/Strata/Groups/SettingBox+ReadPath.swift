import Synchronization

/// The read path: a cached value without the lock when it is current, else resolved outside the lock
/// and cached (the rule for a cached value is stated on ``ReadCache``).
extension SettingBox {
  /// The value for the current generation: from the cache when it is current (lock-free for plain
  /// data, see ``ReadCache``; else a lock held only to copy the value), else resolved outside the lock
  /// and cached.
  @inlinable
  func read() -> Value {
    if let value = readByProgram() { return value }
    missingValue()
  }

  /// ``readIfPresent()``, as the program's own read: the setting counts as read from then on (see
  /// ``wasReadByProgram``). The store's and the tools' looks (`requireAll()`, an origin, the control
  /// socket's status) use ``readIfPresent()`` and do not count.
  @inlinable
  func readByProgram() -> Value? {
    // A lock-free hit exists only once the setting was read: the cache is filled from then on.
    if let hit = cache.load() { return hit }
    noteReadByProgram()
    return readIfPresent()
  }

  /// Marks the setting read by the program (a load, and a store the first time only). Called on a
  /// cache miss only (every read of a type the lock-free cache does not hold).
  @usableFromInline
  func noteReadByProgram() {
    if !programRead.load(ordering: .relaxed) { programRead.store(true, ordering: .relaxed) }
  }

  /// Whether the program has read the setting since it was declared.
  var wasReadByProgram: Bool { programRead.load(ordering: .relaxed) }

  func forgetReads() { programRead.store(false, ordering: .relaxed) }

  /// The value for the current generation, or `nil` for a required setting that has no value.
  @inlinable
  func readIfPresent() -> Value? {
    // The hot path, inlined and specialized in the caller. A plain-data value comes from the lock-free
    // cache, writing nothing; a miss there (stale, pinned, unbound, or a restart-required value not
    // fixed yet) takes the slow path. Other types copy the value under the lock, by the same rule. The
    // outer optional is the cache miss.
    if let hit = cache.load() { return hit }
    if ReadCache<Value>.isLockFree { return readResolving() }
    let hit = withState { state -> Value?? in
      guard cache.isBound else { return .some(defaultValue) }
      if state.isRunningValueFixed { return .some(state.value) }
      if cache.isCurrent(state.generation) {
        if isRestartRequired && state.value != nil { state.isRunningValueFixed = true }
        return .some(state.value)
      }
      return nil
    }
    if let hit { return hit }
    return readResolving()
  }

  /// The slow path: resolve the value for the snapshot reads should see, and cache it. A setting whose
  /// key (and old keys) no reload since its cached generation changed keeps its value for the newest
  /// generation without resolving (a reload visits only the settings it changes).
  @usableFromInline
  func readResolving() -> Value? {
    guard
      let (store, key, cached) = readState({ state in
        cache.boundStore.map { ($0, state.key, state.generation) }
      })
    else {
      FallbackStore.warnOnUnboundRead()
      return defaultValue
    }
    if let group = store.fallbackGroup { FallbackStore.warnOnFirstRead(group) }
    if store.pinCount.load(ordering: .relaxed) == 0 {
      let current = store.generationCounter.load(ordering: .acquiring)
      if store.changeLog.leavesAlone(CollectionOfOne(key) + aliases, after: cached, through: current) {
        if let value = catchUp(from: cached, to: current) { return value }
      }
    }
    let snapshot = store.readingSnapshot()
    let resolved = resolve(in: snapshot, key: key)
    return withState { state in
      if state.isRunningValueFixed { return state.value }
      // A rejected edit keeps the running value: `apply` says so with an event.
      let holds = keepsRunningValue(state, resolved)
      guard store.snapshot.generation == snapshot.generation else {
        return holds ? state.value : resolved.value
      }
      if state.generation < snapshot.generation {
        state.generation = snapshot.generation
        if !holds {
          state.value = resolved.value
          state.origin = resolved.origin
        }
      }
      state.hasRunningValue = true
      if isRestartRequired && state.value != nil { state.isRunningValueFixed = true }
      return state.value
    }
  }

  /// Moves the cached value from generation `cached` to `current` (which changed nothing it reads);
  /// `nil` when another thread moved it meanwhile, and the caller resolves.
  private func catchUp(from cached: Int, to current: Int) -> Value?? {
    withState { state -> Value?? in
      guard state.generation == cached else { return nil }
      state.generation = current
      state.hasRunningValue = true
      if isRestartRequired && state.value != nil { state.isRunningValueFixed = true }
      return .some(state.value)
    }
  }
}
