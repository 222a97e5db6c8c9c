import Synchronization

/// A setting's listeners: its streams and its Observation hook.
extension SettingBox {
  /// What `delivered` holds for a setting without a value (a required one that is missing).
  static var deliveredNothing: SettingValue { SettingValue(.string(""), origin: .codeDefault) }

  /// The value a new listener starts from (later applies tell it of changes from there).
  private func deliveredBaseline(_ state: State) -> SettingValue {
    state.value.flatMap { try? encode($0) } ?? Self.deliveredNothing
  }

  /// A stream of every later change of the typed value.
  func changes() -> AsyncStream<Value> {
    let (stream, continuation) = AsyncStream<Value>.makeStream(bufferingPolicy: .bufferingNewest(64))
    subscribe(continuation)
    return stream
  }

  /// The current value, then every change.
  func values() -> AsyncStream<Value> {
    let (stream, continuation) = AsyncStream<Value>.makeStream(bufferingPolicy: .bufferingNewest(64))
    if let value = readIfPresent() { continuation.yield(value) }
    subscribe(continuation)
    return stream
  }

  private func subscribe(_ continuation: AsyncStream<Value>.Continuation) {
    noteReadByProgram()
    let (id, rare) = withState { state in
      if state.delivered == nil { state.delivered = deliveredBaseline(state) }
      let rare = state.rareForWriting()
      let id = rare.nextContinuation
      rare.nextContinuation += 1
      rare.continuations[id] = continuation
      return (id, rare)
    }
    // The box strongly, not weakly: a weak reference would give the box a side table, which makes
    // every retain and release of it (one pair per cached read) take the runtime's slow path. The cycle
    // this makes (box → continuation → this closure → box) ends when the stream terminates or
    // `finish()` empties `continuations` (the group's deinit, or the store's shutdown). `rare` is the
    // box's for good once made, and is touched only with the box's lock held.
    continuation.onTermination = { [self] _ in
      readState { _ in _ = rare.continuations.removeValue(forKey: id) }
    }
  }

  /// Ends every stream (the group was released, or the store shut down).
  func finish() {
    let continuations = readState { state in
      guard let rare = state.rare else { return [AsyncStream<Value>.Continuation]() }
      defer { rare.continuations = [:] }
      return Array(rare.continuations.values)
    }
    for continuation in continuations { continuation.finish() }
  }

  /// Installs the Observation hook once (from the first typed read, which knows the group) and keeps
  /// `keyPath`, the key the hook tells the registrar of, for ``observedKeyPath``.
  @usableFromInline
  func installObserver(_ hook: @escaping @Sendable () -> Void, keyPath: AnyKeyPath) {
    withState { state in
      if state.delivered == nil { state.delivered = deliveredBaseline(state) }
      guard state.observe == nil else { return }
      state.observe = hook
      observedKeyPath.store(
        UnsafeRawPointer(Unmanaged.passRetained(keyPath).toOpaque()), ordering: .releasing)
    }
  }
}
