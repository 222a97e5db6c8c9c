import Synchronization

/// The end of a child process, awaited without blocking a thread: a `Process`'s termination handler
/// calls ``finish()`` (Foundation has reaped the child by then), and ``wait()`` resumes every waiter.
final class ProcessExit: Sendable {
  private let state = Mutex<(done: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

  /// The process ended: every wait returns, now and from now on.
  func finish() {
    let waiters = state.withLock { state in
      state.done = true
      defer { state.waiters = [] }
      return state.waiters
    }
    for waiter in waiters { waiter.resume() }
  }

  /// Whether the process has ended.
  var isDone: Bool { state.withLock { $0.done } }

  /// Waits until the process has ended.
  func wait() async {
    await withCheckedContinuation { continuation in
      let done = state.withLock { state in
        if !state.done { state.waiters.append(continuation) }
        return state.done
      }
      if done { continuation.resume() }
    }
  }

  /// Waits until the process has ended or `timeout` passed; whether it ended.
  func wait(timeout: Duration) async -> Bool {
    let deadline = ContinuousClock.now + timeout
    while !isDone && ContinuousClock.now < deadline {
      try? await Task.sleep(for: .milliseconds(10))
    }
    return isDone
  }
}
