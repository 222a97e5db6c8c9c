import Synchronization

/// A point in time that waits must not pass.
struct Deadline: Sendable {
  let instant: ContinuousClock.Instant

  /// The deadline `timeout` from now.
  init(_ timeout: Duration) {
    instant = ContinuousClock.now.advanced(by: timeout)
  }

  /// Whether the deadline has passed.
  var hasPassed: Bool { ContinuousClock.now >= instant }

  /// Polls `condition` until it holds (`true`) or the deadline passes (`false`), or the waiting task is
  /// cancelled (`false`).
  func wait(until condition: () -> Bool) async -> Bool {
    while !condition() {
      if hasPassed || Task.isCancelled { return condition() }
      try? await Task.sleep(for: .milliseconds(5))
    }
    return true
  }
}

/// The outcome of work run with a deadline.
enum Bounded<Value: Sendable>: Sendable {
  /// The work finished with a value.
  case finished(Value)
  /// The work threw.
  case threw(any Error)
  /// The deadline passed first; the work's task was cancelled.
  case timedOut
}

/// Runs `work` in a task of its own and waits for it until `deadline`; a task still running then is
/// cancelled (and left to end on its own: a task that ignores cancellation cannot be stopped).
/// - Parameter cancelled: cancel the task at once, before waiting (to see that it ends when cancelled).
func bounded<Value: Sendable>(
  by deadline: Deadline, cancelled: Bool = false, _ work: @escaping @Sendable () async throws -> Value
) async -> Bounded<Value> {
  let result = Shared<Bounded<Value>?>(nil)
  let task = Task {
    let outcome: Bounded<Value>
    do { outcome = .finished(try await work()) } catch { outcome = .threw(error) }
    result.value = outcome
  }
  if cancelled { task.cancel() }
  defer { task.cancel() }
  guard await deadline.wait(until: { result.value != nil }) else { return .timedOut }
  return result.value ?? .timedOut
}

/// A value shared between tasks, behind a lock.
final class Shared<Value: Sendable>: Sendable {
  private let mutex: Mutex<Value>

  /// Holds `value`.
  init(_ value: Value) { mutex = Mutex(value) }

  /// The value now.
  var value: Value {
    get { mutex.withLock { $0 } }
    set { mutex.withLock { $0 = newValue } }
  }

  /// Changes the value in place.
  func update(_ body: (inout Value) -> Void) { mutex.withLock { body(&$0) } }
}
