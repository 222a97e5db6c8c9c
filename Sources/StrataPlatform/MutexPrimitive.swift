/// A `pthread_mutex_t` as a Swift type, so that a lock stored in a `ManagedBuffer` (Strata's `Locked`)
/// names no C type in Strata's inlinable code. Used only in place, through a stable pointer: a mutex
/// must never move once initialized.
///
/// A pthread mutex rather than `Synchronization.Mutex`: on Linux `Mutex` uses raw futex calls that
/// ThreadSanitizer cannot see (every access it protects would be reported as a race, hiding real ones),
/// while `pthread_mutex_lock` is intercepted by TSan and costs the same uncontended. The corresponding C
/// functions (`pthread_mutex_init`, `_lock`, `_unlock`, `_destroy`, `<pthread.h>`) are the same on
/// every platform here.
@frozen
public struct MutexPrimitive {
  @usableFromInline var mutex = pthread_mutex_t()

  /// An uninitialized mutex; ``initialize(_:)`` it in place before use.
  @inlinable
  public init() {}

  /// Initializes the mutex at `pointer` (default attributes); stops the program if that fails.
  @inlinable
  public static func initialize(_ pointer: UnsafeMutablePointer<MutexPrimitive>) {
    let result = pthread_mutex_init(raw(pointer), nil)
    precondition(result == 0, "pthread_mutex_init failed: \(result)")
  }

  /// Ends the mutex at `pointer` (unlocked, and never used again).
  @inlinable
  public static func destroy(_ pointer: UnsafeMutablePointer<MutexPrimitive>) {
    pthread_mutex_destroy(raw(pointer))
  }

  /// Locks the mutex at `pointer`. A default mutex fails only when misused (`EINVAL` after
  /// destruction); carrying on unlocked would be a silent data race, so a failure stops the program.
  @inlinable
  public static func lock(_ pointer: UnsafeMutablePointer<MutexPrimitive>) {
    let result = pthread_mutex_lock(raw(pointer))
    precondition(result == 0, "pthread_mutex_lock failed: \(result)")
  }

  /// Unlocks the mutex at `pointer`, which the calling thread holds.
  @inlinable
  public static func unlock(_ pointer: UnsafeMutablePointer<MutexPrimitive>) {
    pthread_mutex_unlock(raw(pointer))
  }

  /// The C mutex: the struct's one stored property, at its address.
  @inlinable
  static func raw(_ pointer: UnsafeMutablePointer<MutexPrimitive>) -> UnsafeMutablePointer<pthread_mutex_t> {
    UnsafeMutableRawPointer(pointer).assumingMemoryBound(to: pthread_mutex_t.self)
  }
}
