import StrataPlatform

/// Runs `body` on a new thread of its own and suspends until it returns, so that a blocking call (a
/// lock held by another process, `fsync`) never holds a thread of the cooperative pool. When no thread
/// can be started, `body` runs on the caller's.
func onDedicatedThread<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
  await withCheckedContinuation { (continuation: CheckedContinuation<T, Never>) in
    let work: @Sendable () -> Void = { continuation.resume(returning: body()) }
    if !DetachedThread.start(work) { work() }
  }
}
