import Glibc

/// A value behind a `pthread_mutex_t`.
///
/// Used instead of `Synchronization.Mutex`, whose Linux implementation uses raw futex calls that
/// ThreadSanitizer cannot see: under `--sanitize=thread` every access it protects would be reported as
/// a race, hiding real ones. `pthread_mutex_lock` is intercepted by TSan, and costs the same
/// uncontended.
@usableFromInline
final class Locked<State: Sendable>: @unchecked Sendable {
  // @unchecked: `state` is only touched inside `withLock`, with `mutex` held, and `State` is Sendable,
  // so what `withLock` hands out may cross threads.
  @usableFromInline let mutex: UnsafeMutablePointer<pthread_mutex_t>
  // Behind a pointer rather than a stored `var`: a class's stored `var` passed `inout` costs a dynamic
  // exclusivity check (swift_beginAccess/endAccess) on every call, which the mutex already makes
  // redundant; on the cached-read path that check was a fifth of the instructions.
  @usableFromInline let state: UnsafeMutablePointer<State>

  @usableFromInline
  init(_ state: State) {
    self.state = .allocate(capacity: 1)
    self.state.initialize(to: state)
    mutex = .allocate(capacity: 1)
    mutex.initialize(to: pthread_mutex_t())
    let result = pthread_mutex_init(mutex, nil)
    precondition(result == 0, "pthread_mutex_init failed: \(result)")
  }

  deinit {
    state.deinitialize(count: 1)
    state.deallocate()
    pthread_mutex_destroy(mutex)
    mutex.deinitialize(count: 1)
    mutex.deallocate()
  }

  /// Runs `body` with the lock held. `body` must not call back into code that takes the same lock.
  @inlinable
  func withLock<Result, Failure: Error>(_ body: (inout State) throws(Failure) -> Result) throws(Failure)
    -> Result
  {
    // A default mutex fails only when misused (EINVAL after destruction, EDEADLK is not reported);
    // carrying on unlocked would be a silent data race, so a failure stops the program.
    let locked = pthread_mutex_lock(mutex)
    precondition(locked == 0, "pthread_mutex_lock failed: \(locked)")
    defer { pthread_mutex_unlock(mutex) }
    return try body(&state.pointee)
  }
}
