import Glibc

/// A value behind a `pthread_mutex_t`.
///
/// Used instead of `Synchronization.Mutex`, whose Linux implementation uses raw futex calls that
/// ThreadSanitizer cannot see: under `--sanitize=thread` every access it protects would be reported as
/// a race, hiding real ones. `pthread_mutex_lock` is intercepted by TSan, and costs the same
/// uncontended.
@usableFromInline
final class Locked<State>: @unchecked Sendable {
  // @unchecked: `state` is only touched inside `withLock`, with `mutex` held.
  @usableFromInline let mutex: UnsafeMutablePointer<pthread_mutex_t>
  @usableFromInline var state: State

  @usableFromInline
  init(_ state: State) {
    self.state = state
    mutex = .allocate(capacity: 1)
    mutex.initialize(to: pthread_mutex_t())
    pthread_mutex_init(mutex, nil)
  }

  deinit {
    pthread_mutex_destroy(mutex)
    mutex.deinitialize(count: 1)
    mutex.deallocate()
  }

  /// Runs `body` with the lock held. `body` must not call back into code that takes the same lock.
  @inlinable
  func withLock<Result, Failure: Error>(_ body: (inout State) throws(Failure) -> Result) throws(Failure)
    -> Result
  {
    pthread_mutex_lock(mutex)
    defer { pthread_mutex_unlock(mutex) }
    return try body(&state)
  }
}
