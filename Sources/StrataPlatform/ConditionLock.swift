/// A value behind a mutex, with a condition variable to wait on until the value says to go on: the
/// pattern of a worker's queue (wait while it is empty) and of a pipeline's waiters (wait until their
/// ticket is done).
///
/// Blocking: never wait on one from a thread of the cooperative pool.
///
/// The corresponding C functions are `pthread_mutex_*` and `pthread_cond_*` (`<pthread.h>`, the same on
/// every platform here).
public final class ConditionLock<State: Sendable>: @unchecked Sendable {
  // @unchecked: `state` is read and written only with `mutex` held (`withLock`, `wait`); `condition`
  // is used only with `mutex`. All three are allocated in init and freed in deinit; pointers, not stored
  // `var`s, because a stored property passed `inout` from several threads is an access race for TSan.
  private let state: UnsafeMutablePointer<State>
  private let mutex: UnsafeMutablePointer<pthread_mutex_t>
  private let condition: UnsafeMutablePointer<pthread_cond_t>

  /// A lock holding `state`.
  public init(_ state: State) {
    self.state = .allocate(capacity: 1)
    self.state.initialize(to: state)
    mutex = .allocate(capacity: 1)
    mutex.initialize(to: pthread_mutex_t())
    let locked = pthread_mutex_init(mutex, nil)
    precondition(locked == 0, "pthread_mutex_init failed: \(locked)")
    condition = .allocate(capacity: 1)
    condition.initialize(to: pthread_cond_t())
    let waited = pthread_cond_init(condition, nil)
    precondition(waited == 0, "pthread_cond_init failed: \(waited)")
  }

  deinit {
    pthread_cond_destroy(condition)
    condition.deallocate()
    pthread_mutex_destroy(mutex)
    mutex.deallocate()
    state.deinitialize(count: 1)
    state.deallocate()
  }

  /// Runs `body` with the lock held. `body` must not take the same lock.
  public func withLock<Result>(_ body: (inout State) throws -> Result) rethrows -> Result {
    pthread_mutex_lock(mutex)
    defer { pthread_mutex_unlock(mutex) }
    return try body(&state.pointee)
  }

  /// Blocks the calling thread while `mustWait` holds (checked with the lock held, again after each
  /// wake-up: wake-ups can be spurious), then runs `body` with the lock still held.
  public func wait<Result>(while mustWait: (State) -> Bool, then body: (inout State) -> Result) -> Result {
    pthread_mutex_lock(mutex)
    defer { pthread_mutex_unlock(mutex) }
    while mustWait(state.pointee) { pthread_cond_wait(condition, mutex) }
    return body(&state.pointee)
  }

  /// Blocks the calling thread while `mustWait` holds, for at most `nanoseconds` in all, then runs
  /// `body` with the lock held; its second argument says whether the time ran out with `mustWait` still
  /// holding. The corresponding C function is `pthread_cond_timedwait` (with `CLOCK_REALTIME`, the
  /// condition's default clock: a clock step shortens or lengthens the wait, which only makes the
  /// caller look again sooner or later).
  public func wait<Result>(
    while mustWait: (State) -> Bool, atMostNanoseconds nanoseconds: UInt64,
    then body: (inout State, _ timedOut: Bool) -> Result
  ) -> Result {
    var now = timespec()
    clock_gettime(CLOCK_REALTIME, &now)
    let total = UInt64(now.tv_nsec) + nanoseconds
    var deadline = timespec()
    deadline.tv_sec = now.tv_sec + Int(total / 1_000_000_000)
    deadline.tv_nsec = Int(total % 1_000_000_000)
    pthread_mutex_lock(mutex)
    defer { pthread_mutex_unlock(mutex) }
    var timedOut = false
    while mustWait(state.pointee) && !timedOut {
      timedOut = pthread_cond_timedwait(condition, mutex, &deadline) == ETIMEDOUT
    }
    return body(&state.pointee, timedOut && mustWait(state.pointee))
  }

  /// Wakes one thread waiting in ``wait(while:then:)``; call it with the lock held (inside `withLock`)
  /// after changing what the waiter checks.
  public func signal() { pthread_cond_signal(condition) }

  /// Wakes every thread waiting in ``wait(while:then:)``; call it with the lock held.
  public func broadcast() { pthread_cond_broadcast(condition) }
}
