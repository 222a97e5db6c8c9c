// Public: `withLock` is inlined into the users' read path (`SettingBox.readIfPresent`), so the mutex
// type and its calls must be visible there. No C type is named: `MutexPrimitive` wraps it.
public import StrataPlatform

/// A value behind a pthread mutex (``MutexPrimitive``, which says why not `Synchronization.Mutex`), both
/// in one allocation (see ``LockedStorage``).
@usableFromInline
struct Locked<State: Sendable>: @unchecked Sendable {
  // @unchecked: the state is only touched inside `withLock`, with the mutex held, and `State` is
  // Sendable, so what `withLock` hands out may cross threads.
  @usableFromInline let storage: LockedStorage<State>

  @usableFromInline
  init(_ state: State) {
    storage = LockedStorage.make(state)
  }

  /// Runs `body` with the lock held. `body` must not call back into code that takes the same lock.
  @inlinable
  func withLock<Result, Failure: Error>(_ body: (inout State) throws(Failure) -> Result) throws(Failure)
    -> Result
  {
    try storage.withLock(body)
  }
}

/// The state as a buffer's header and the mutex as its one tail element, as swift-nio's
/// `NIOLockedValueBox` keeps them: one allocation, where a class holding both behind pointers took three.
///
/// Both are reached through the pointers `ManagedBuffer` gives (stable for the object's life), never as
/// a class's stored `var` passed `inout`: that would cost a dynamic exclusivity check on every call
/// (which the mutex makes redundant; on the cached-read path it was a fifth of the instructions), and
/// taking the address of a stored `var` from several threads is a Swift access race for TSan.
@usableFromInline
final class LockedStorage<State>: ManagedBuffer<State, MutexPrimitive> {
  /// A buffer holding `state` and an initialized mutex.
  @usableFromInline
  static func make(_ state: State) -> LockedStorage {
    let buffer = unsafeDowncast(create(minimumCapacity: 1) { _ in state }, to: LockedStorage.self)
    buffer.withUnsafeMutablePointerToElements { mutex in
      mutex.initialize(to: MutexPrimitive())
      MutexPrimitive.initialize(mutex)
    }
    return buffer
  }

  deinit {
    // `ManagedBuffer` deinitializes the header (the state); the elements are the subclass's to end.
    withUnsafeMutablePointerToElements { mutex in
      MutexPrimitive.destroy(mutex)
      mutex.deinitialize(count: 1)
    }
  }

  /// Runs `body` with the lock held.
  @inlinable
  func withLock<Result, Failure: Error>(_ body: (inout State) throws(Failure) -> Result) throws(Failure)
    -> Result
  {
    // The pointers stay valid while `self` lives, which the call guarantees (`_fixLifetime` below).
    let (state, mutex) = withUnsafeMutablePointers { ($0, $1) }
    MutexPrimitive.lock(mutex)
    defer {
      MutexPrimitive.unlock(mutex)
      _fixLifetime(self)
    }
    return try body(&state.pointee)
  }
}
