/// The two ways into a setting's locked state. The read path's rule, that the lock-free cache mirrors
/// the locked state whenever the lock is free, is kept here once: ``withState(_:)`` publishes the cache
/// on every exit of every section that can change the state, so a new section cannot forget it.
extension SettingBox {
  /// Runs `body` with the lock held and the state writable, then, still holding the lock, publishes
  /// what the state now holds to the lock-free cache, on every exit (a return, an early `guard`, a
  /// throw). Every change of the state goes through here.
  @inlinable
  func withState<Result, Failure: Error>(_ body: (inout State) throws(Failure) -> Result) throws(Failure)
    -> Result
  {
    try lockedState.withLock { (state) throws(Failure) -> Result in
      // Only plain-data types are cached without the lock; for the others there is nothing to publish,
      // and the test is a constant once specialized (no call on their locked read path).
      defer { if ReadCache<Value>.isLockFree { publishCache(state) } }
      return try body(&state)
    }
  }

  /// Runs `body` with the lock held and the state read-only: a section that only looks (at the key,
  /// the origin, the bound store) has nothing to publish.
  @inlinable
  func readState<Result>(_ body: (State) -> Result) -> Result {
    lockedState.withLock { state in body(state) }
  }

  /// Tells the lock-free cache what the locked state holds now. Called with the lock held, by
  /// ``withState(_:)`` only.
  @usableFromInline
  func publishCache(_ state: State) {
    if state.isRunningValueFixed {
      cache.publish(generation: ReadCache<Value>.fixedGeneration, value: state.value)
    } else if isRestartRequired || !cache.isBound || !wasReadByProgram {
      // A restart-required value is fixed by its first read, a write: that read takes the lock. A
      // setting the program has not read yet is not cached: its first typed read notes that it was.
      cache.publish(generation: ReadCache<Value>.emptyGeneration, value: nil)
    } else {
      cache.publish(generation: state.generation, value: state.value)
    }
  }
}
