public import Glibc

/// A value behind a `pthread_mutex_t`, both in one allocation (see ``LockedStorage``).
///
/// Used instead of `Synchronization.Mutex`, whose Linux implementation uses raw futex calls that
/// ThreadSanitizer cannot see: under `--sanitize=thread` every access it protects would be reported as
/// a race, hiding real ones. `pthread_mutex_lock` is intercepted by TSan, and costs the same
/// uncontended.
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
final class LockedStorage<State>: ManagedBuffer<State, pthread_mutex_t> {
  /// A buffer holding `state` and an initialized mutex.
  @usableFromInline
  static func make(_ state: State) -> LockedStorage {
    let buffer = unsafeDowncast(create(minimumCapacity: 1) { _ in state }, to: LockedStorage.self)
    buffer.withUnsafeMutablePointerToElements { mutex in
      mutex.initialize(to: pthread_mutex_t())
      let result = pthread_mutex_init(mutex, nil)
      precondition(result == 0, "pthread_mutex_init failed: \(result)")
    }
    return buffer
  }

  deinit {
    // `ManagedBuffer` deinitializes the header (the state); the elements are the subclass's to end.
    withUnsafeMutablePointerToElements { mutex in
      pthread_mutex_destroy(mutex)
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
    // A default mutex fails only when misused (EINVAL after destruction, EDEADLK is not reported);
    // carrying on unlocked would be a silent data race, so a failure stops the program.
    let locked = pthread_mutex_lock(mutex)
    precondition(locked == 0, "pthread_mutex_lock failed: \(locked)")
    defer {
      pthread_mutex_unlock(mutex)
      _fixLifetime(self)
    }
    return try body(&state.pointee)
  }
}
