import Synchronization

#if canImport(Darwin)
  import Darwin
#elseif canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// The wait for a signal that ends the server: its handler writes a byte to a pipe, and a thread of
/// its own reads it (a signal handler may not resume a task), so that the task that waits is resumed
/// without holding a thread.
final class Termination: Sendable {
  private struct State {
    var arrived = false
    var waiters: [CheckedContinuation<Void, Never>] = []
  }
  private let state = Mutex(State())

  private init() {}

  /// Makes the pipe, hands its write end to `publish` (for the handler to write to), and starts the
  /// thread that reads it.
  static func readingAPipe(_ publish: (Int32) -> Void) -> Termination {
    let termination = Termination()
    var ends: [Int32] = [-1, -1]
    guard pipe(&ends) == 0 else { fatalError("hot-reload-server: cannot make a pipe: error \(errno)") }
    let readEnd = ends[0]
    publish(ends[1])
    startThread {
      var byte: UInt8 = 0
      while read(readEnd, &byte, 1) < 0 && errno == EINTR {}
      termination.arrive()
    }
    return termination
  }

  /// Returns once a signal has arrived.
  func wait() async {
    await withCheckedContinuation { continuation in
      let resumeNow = state.withLock { state in
        if state.arrived { return true }
        state.waiters.append(continuation)
        return false
      }
      if resumeNow { continuation.resume() }
    }
  }

  private func arrive() {
    let waiters = state.withLock { state in
      state.arrived = true
      defer { state.waiters = [] }
      return state.waiters
    }
    for waiter in waiters { waiter.resume() }
  }
}
