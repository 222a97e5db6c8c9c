import StrataPlatform

/// A thread of its own that runs submitted closures one at a time, in order, until ``stop()``: where a
/// running store's pipeline does its work (file reads, parsing, settings' observers), so that neither
/// the watcher's thread nor the cooperative pool waits on it, and a slow observer holds up only its
/// own store.
final class WorkerThread: Sendable {
  private struct State {
    var queue: [@Sendable () -> Void] = []
    var stopped = false
  }

  private let lock = ConditionLock(State())

  /// Starts the thread; `nil` when the system cannot start one (callers then do the work themselves).
  init?() {
    // The thread holds `self` until its loop ends (after `stop()`).
    guard DetachedThread.start({ [self] in loop() }) else { return nil }
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
    lock.withLock { state in
      state.stopped = true
      lock.signal()
    }
  }

  /// Runs `body` on the thread after what was submitted before, without waiting for it; `false` (and
  /// nothing runs) once the thread was stopped.
  @discardableResult
  func submit(_ body: @escaping @Sendable () -> Void) -> Bool {
    lock.withLock { state in
      guard !state.stopped else { return false }
      state.queue.append(body)
      lock.signal()
      return true
    }
  }

  private func loop() {
    while true {
      let (batch, stopped) = lock.wait(while: { $0.queue.isEmpty && !$0.stopped }) { state in
        defer { state.queue = [] }
        return (state.queue, state.stopped)
      }
      for body in batch { body() }
      if stopped && batch.isEmpty { return }
    }
  }
}
