/// Threads of their own, for work that blocks (a lock held by another process, `poll`, `fsync`) and
/// must never hold a thread of the cooperative pool.
public enum DetachedThread {
  /// Starts a detached thread that runs `body`; `false` (and `body` does not run) when the system
  /// cannot start one.
  ///
  /// The corresponding C functions are `pthread_create` and `pthread_detach` (`<pthread.h>`). `pthread_t`
  /// is an integer on glibc and Bionic (so `pthread_create` takes a non-optional pointer to it), an
  /// optional pointer on Darwin and musl; the start routine's argument is optional on glibc and musl,
  /// not on Darwin (both are unwrapped the same way below).
  public static func start(_ body: @escaping @Sendable () -> Void) -> Bool {
    guard let thread = JoinableThread.start(body) else { return false }
    thread.detach()
    return true
  }
}

/// The closure a thread runs, boxed to cross `pthread_create`'s context pointer.
private final class ThreadBody: Sendable {
  let body: @Sendable () -> Void
  init(_ body: @escaping @Sendable () -> Void) { self.body = body }
}

/// Which thread is running, to compare with another (a pipeline's drainer, say).
public struct ThreadIdentity: Equatable, @unchecked Sendable {
  // @unchecked: the `pthread_t` (an integer, or a pointer on Darwin and musl) is only compared with
  // `pthread_equal`, never dereferenced.
  private let thread: pthread_t

  /// The calling thread.
  ///
  /// The corresponding C function is `pthread_self` (`<pthread.h>`, every platform).
  public static var current: ThreadIdentity { ThreadIdentity(thread: pthread_self()) }

  /// Whether both are the same thread (`pthread_equal`, `<pthread.h>`).
  public static func == (lhs: ThreadIdentity, rhs: ThreadIdentity) -> Bool {
    pthread_equal(lhs.thread, rhs.thread) != 0
  }
}

/// A thread that is joined rather than detached: its owner waits for it to end (a private watcher
/// hub's thread, which `shutdown` ends and waits for).
public struct JoinableThread: @unchecked Sendable {
  // @unchecked: the `pthread_t` is only compared and joined, never dereferenced.
  #if canImport(Darwin) || canImport(Musl)
    private let thread: pthread_t?
  #else
    private let thread: pthread_t
  #endif

  /// Starts a thread that runs `body`; `nil` (and `body` does not run) when the system cannot start
  /// one (`EAGAIN`: the process's thread limit).
  ///
  /// The corresponding C function is `pthread_create` (`<pthread.h>`); `pthread_t` is spelled as in
  /// ``DetachedThread/start(_:)``.
  public static func start(_ body: @escaping @Sendable () -> Void) -> JoinableThread? {
    let context = Unmanaged.passRetained(ThreadBody(body)).toOpaque()
    #if canImport(Darwin) || canImport(Musl)
      var thread: pthread_t? = nil
    #else
      var thread = pthread_t()
    #endif
    let result = pthread_create(
      &thread, nil,
      { context in
        Unmanaged<ThreadBody>.fromOpaque((context as UnsafeMutableRawPointer?)!).takeRetainedValue().body()
        return nil
      }, context)
    guard result == 0 else {
      Unmanaged<ThreadBody>.fromOpaque(context).release()
      return nil
    }
    return JoinableThread(thread: thread)
  }

  /// Whether the calling thread is this one (`pthread_equal`, `pthread_self`: `<pthread.h>`).
  public var isCurrent: Bool {
    #if canImport(Darwin) || canImport(Musl)
      guard let thread else { return false }
    #endif
    return pthread_equal(thread, pthread_self()) != 0
  }

  /// Lets the thread end without a join (`pthread_detach`, `<pthread.h>`): what
  /// ``DetachedThread/start(_:)`` does with it.
  fileprivate func detach() {
    #if canImport(Darwin) || canImport(Musl)
      guard let thread else { return }
    #endif
    pthread_detach(thread)
  }

  /// Waits until the thread has ended (`pthread_join`, `<pthread.h>`). Never call it from the thread
  /// itself (see ``isCurrent``).
  public func join() {
    #if canImport(Darwin) || canImport(Musl)
      guard let thread else { return }
    #endif
    pthread_join(thread, nil)
  }
}
