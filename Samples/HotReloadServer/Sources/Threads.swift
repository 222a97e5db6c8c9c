#if canImport(Darwin)
  import Darwin
#elseif canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// Runs `body` on a new thread of its own, for work that blocks its thread (`accept`, `sigwait`): the
/// cooperative pool's few threads are not for blocking.
func startThread(_ body: @escaping @Sendable () -> Void) {
  final class Work: Sendable {
    let body: @Sendable () -> Void
    init(_ body: @escaping @Sendable () -> Void) { self.body = body }
  }
  let work = Unmanaged.passRetained(Work(body)).toOpaque()
  #if canImport(Darwin)
    var thread: pthread_t? = nil
  #else
    var thread = pthread_t()
  #endif
  let started = pthread_create(
    &thread, nil,
    { context in
      Unmanaged<Work>.fromOpaque(unwrap(context)).takeRetainedValue().body()
      return nil
    }, work)
  guard started == 0 else { fatalError("hot-reload-server: cannot start a thread: error \(started)") }
  pthread_detach(thread)
}

/// A thread's argument, whichever way the C library declares it.
private func unwrap(_ context: UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer { context! }
