import Glibc

/// A thread of its own that runs submitted closures one at a time, in order, until ``stop()``: where a
/// running store's pipeline does its work (file reads, parsing, settings' observers), so that neither
/// the watcher's thread nor the cooperative pool waits on it, and a slow observer holds up only its
/// own store.
final class WorkerThread: @unchecked Sendable {
  // @unchecked: `state` is touched only with `mutex` held; `condition` is used only with `mutex`; all
  // three are allocated in init and freed in deinit, after the thread has ended (it holds `self`).
  private struct State {
    var queue: [@Sendable () -> Void] = []
    var stopped = false
  }

  private let state: UnsafeMutablePointer<State>
  private let mutex: UnsafeMutablePointer<pthread_mutex_t>
  private let condition: UnsafeMutablePointer<pthread_cond_t>

  /// Starts the thread; `nil` when the system cannot start one (callers then do the work themselves).
  init?() {
    state = .allocate(capacity: 1)
    state.initialize(to: State())
    mutex = .allocate(capacity: 1)
    mutex.initialize(to: pthread_mutex_t())
    pthread_mutex_init(mutex, nil)
    condition = .allocate(capacity: 1)
    condition.initialize(to: pthread_cond_t())
    pthread_cond_init(condition, nil)
    var thread = pthread_t()
    let context = Unmanaged.passRetained(self).toOpaque()
    let started = pthread_create(
      &thread, nil,
      { context in
        Unmanaged<WorkerThread>.fromOpaque(context!).takeRetainedValue().loop()
        return nil
      }, context)
    guard started == 0 else {
      Unmanaged<WorkerThread>.fromOpaque(context).release()
      return nil
    }
    pthread_detach(thread)
  }

  deinit {
    pthread_cond_destroy(condition)
    condition.deallocate()
    pthread_mutex_destroy(mutex)
    mutex.deallocate()
    state.deinitialize(count: 1)
    state.deallocate()
  }

  /// Runs `body` on the thread after what was submitted before, and suspends until it returns.
  func run<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { (continuation: CheckedContinuation<T, Never>) in
      let accepted = submit { continuation.resume(returning: body()) }
      if !accepted { continuation.resume(returning: body()) }
    }
  }

  /// Ends the thread once what was submitted is done; later submissions run on their caller's thread.
  func stop() {
    pthread_mutex_lock(mutex)
    state.pointee.stopped = true
    pthread_cond_signal(condition)
    pthread_mutex_unlock(mutex)
  }

  /// Runs `body` on the thread after what was submitted before, without waiting for it; `false` (and
  /// nothing runs) once the thread was stopped.
  @discardableResult
  func submit(_ body: @escaping @Sendable () -> Void) -> Bool {
    pthread_mutex_lock(mutex)
    defer { pthread_mutex_unlock(mutex) }
    guard !state.pointee.stopped else { return false }
    state.pointee.queue.append(body)
    pthread_cond_signal(condition)
    return true
  }

  private func loop() {
    while true {
      pthread_mutex_lock(mutex)
      while state.pointee.queue.isEmpty && !state.pointee.stopped { pthread_cond_wait(condition, mutex) }
      let batch = state.pointee.queue
      state.pointee.queue = []
      let stopped = state.pointee.stopped
      pthread_mutex_unlock(mutex)
      for body in batch { body() }
      if stopped && batch.isEmpty { return }
    }
  }
}
