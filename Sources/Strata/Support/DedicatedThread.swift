import Glibc

/// Runs `body` on a new thread of its own and suspends until it returns, so that a blocking call (a
/// lock held by another process, `fsync`) never holds a thread of the cooperative pool. When no thread
/// can be started, `body` runs on the caller's.
func onDedicatedThread<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
  await withCheckedContinuation { (continuation: CheckedContinuation<T, Never>) in
    let work = DedicatedWork { continuation.resume(returning: body()) }
    let context = Unmanaged.passRetained(work).toOpaque()
    var thread = pthread_t()
    let started = pthread_create(
      &thread, nil,
      { context in
        Unmanaged<DedicatedWork>.fromOpaque(context!).takeRetainedValue().body()
        return nil
      }, context)
    if started == 0 {
      pthread_detach(thread)
    } else {
      Unmanaged<DedicatedWork>.fromOpaque(context).takeRetainedValue().body()
    }
  }
}

/// The closure a dedicated thread runs, boxed to cross `pthread_create`'s context pointer.
private final class DedicatedWork: Sendable {
  let body: @Sendable () -> Void
  init(_ body: @escaping @Sendable () -> Void) { self.body = body }
}
