import Foundation
import Synchronization

@testable import Strata

/// Blocking work on a thread of its own, whose result is awaited without blocking anything.
///
/// Swift Testing runs every test, synchronous or `async`, on the cooperative pool, which has one thread
/// per core (two on CI's machines). A test that blocks one of them (in `waitpid`, `poll`, `read`, a
/// semaphore or `concurrentPerform`) takes it from every other test and from the stores under test, whose
/// own tasks then miss their deadlines. Work that blocks runs here instead: on a new thread, with its
/// result handed back through a continuation, optionally with a deadline.
final class OwnThread<Value: Sendable>: Sendable {
  private struct State: Sendable {
    var value: Value?
    /// The tasks waiting for the value, by waiter number.
    var waiters: [Int: CheckedContinuation<Value?, Never>] = [:]
    /// Waiters whose deadline passed before they started waiting.
    var expired: Set<Int> = []
    var lastWaiter = 0
  }

  private let state = Locked(State())

  /// Starts `work` on a new thread, with `stackSize` bytes of stack (`nil`: Foundation's default).
  init(stackSize: Int? = nil, _ work: @escaping @Sendable () -> Value) {
    let thread = Thread { [state] in
      let value = work()
      let waiters = state.withLock { state in
        state.value = value
        defer { state.waiters = [:] }
        return Array(state.waiters.values)
      }
      for waiter in waiters { waiter.resume(returning: value) }
    }
    if let stackSize { thread.stackSize = stackSize }
    thread.start()
  }

  /// The work's result, once it has returned.
  var value: Value {
    get async {
      // Without a deadline nothing resumes a waiter with nil.
      await wait(within: nil)!
    }
  }

  /// The work's result, or `nil` if it has not returned within `seconds` (it goes on running).
  func value(within seconds: Double) async -> Value? {
    await wait(within: seconds)
  }

  private func wait(within seconds: Double?) async -> Value? {
    let id = state.withLock { state in
      state.lastWaiter += 1
      return state.lastWaiter
    }
    let timer = seconds.map { seconds in
      Task { [state] in
        guard (try? await Task.sleep(for: .seconds(seconds))) != nil else { return }
        let waiter = state.withLock { state -> CheckedContinuation<Value?, Never>? in
          guard state.value == nil else { return nil }
          guard let waiter = state.waiters.removeValue(forKey: id) else {
            state.expired.insert(id)
            return nil
          }
          return waiter
        }
        waiter?.resume(returning: nil)
      }
    }
    defer { timer?.cancel() }
    return await withCheckedContinuation { continuation in
      // `.some(x)`: resume at once with x; `nil`: the thread or the timer resumes it.
      let now: Value?? = state.withLock { state in
        if let value = state.value { return .some(value) }
        if state.expired.remove(id) != nil { return .some(nil) }
        state.waiters[id] = continuation
        return nil
      }
      if let now { continuation.resume(returning: now) }
    }
  }
}

/// Runs blocking `work` on a new thread (with `stackSize` bytes of stack, or the default) and awaits
/// its result, leaving the concurrency pool free; what `work` throws is thrown here.
func onOwnThread<T: Sendable, Failure: Error>(
  stackSize: Int? = nil, _ work: @escaping @Sendable () throws(Failure) -> T
) async throws(Failure) -> T {
  try await OwnThread(stackSize: stackSize) { Result(catching: work) }.value.get()
}

/// Threads started one by one and joined together, without blocking the concurrency pool: the
/// replacement for `DispatchQueue.concurrentPerform`, which blocks the calling thread (a pool thread, in
/// a test) until every iteration is done.
final class ThreadGroup: Sendable {
  private let threads = Locked<[OwnThread<Void>]>([])

  /// Starts `body` on a thread of its own.
  func spawn(_ body: @escaping @Sendable () -> Void) {
    let thread = OwnThread(body)
    threads.withLock { $0.append(thread) }
  }

  /// Waits until every thread started so far has returned.
  func join() async {
    for thread in threads.withLock({ $0 }) { await thread.value }
  }

  /// Runs `body(0)`, …, `body(count - 1)` on `count` threads of their own and waits for all of them.
  static func run(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) async {
    let group = ThreadGroup()
    for index in 0..<count { group.spawn { body(index) } }
    await group.join()
  }
}

/// How many threads that spin until a writer is done to start: `limit`, or as many as there are cores
/// (at least two) if fewer.
///
/// `concurrentPerform` ran at most one iteration per core at a time; threads of their own all run at
/// once, and more spinning readers than cores only take CPU time from the writer they wait for and from
/// the tests running alongside (whose stores then miss their deadlines), without adding overlap.
func spinningThreadCount(upTo limit: Int) -> Int {
  min(limit, max(2, ProcessInfo.processInfo.activeProcessorCount))
}

/// An `Int` shared between threads (an `Atomic`, which closures cannot capture, in a class).
final class SharedInt: Sendable {
  private let atomic: Atomic<Int>
  init(_ value: Int = 0) { atomic = Atomic(value) }
  func load() -> Int { atomic.load(ordering: .acquiring) }
  func store(_ value: Int) { atomic.store(value, ordering: .releasing) }
  func add(_ value: Int) { atomic.add(value, ordering: .relaxed) }
}
