import Glibc
import Synchronization

/// Keeps a value alive for the optimizer: an opaque call it cannot see through or delete.
@inline(never) @_optimize(none)
func blackHole<T>(_ value: T) {}

/// The median of a non-empty list.
func median(_ values: [Double]) -> Double {
  let sorted = values.sorted()
  let middle = sorted.count / 2
  return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
}

/// The nearest-rank percentile (0...100) of a non-empty list.
func percentile(_ values: [Double], _ p: Double) -> Double {
  let sorted = values.sorted()
  let rank = Int((p / 100 * Double(sorted.count)).rounded(.up))
  return sorted[min(max(rank, 1), sorted.count) - 1]
}

extension Duration {
  /// The duration in nanoseconds, as a Double.
  var nanoseconds: Double {
    Double(components.seconds) * 1e9 + Double(components.attoseconds) / 1e9
  }
  /// The duration in seconds, as a Double.
  var seconds: Double { nanoseconds / 1e9 }
}

/// Times a loop of cheap operations: `body(n)` performs `n` operations and returns a checksum (kept
/// alive with ``blackHole(_:)``). The iteration count is calibrated so that one repetition lasts about
/// `repetitionTime`; after one warm-up repetition, returns the median ns per operation.
func nanosecondsPerOperation(
  repetitionTime: Duration, repetitions: Int, _ body: (Int) -> Int
) -> Double {
  let clock = ContinuousClock()
  var iterations = 1_000
  // Calibrate: grow the count until one run takes at least a tenth of the target.
  while true {
    let elapsed = clock.measure { blackHole(body(iterations)) }
    if elapsed >= repetitionTime / 10 || iterations >= 1 << 30 {
      let perOperation = elapsed.nanoseconds / Double(iterations)
      iterations = max(1_000, Int(repetitionTime.nanoseconds / max(perOperation, 0.01)))
      break
    }
    iterations *= 4
  }
  blackHole(body(iterations))  // warm-up
  var samples: [Double] = []
  for _ in 0..<repetitions {
    let elapsed = clock.measure { blackHole(body(iterations)) }
    samples.append(elapsed.nanoseconds / Double(iterations))
  }
  return median(samples)
}

/// Times several slow operations in turns (one run of each per round, in order), so that every one of
/// them sees the same stretches of a noisy host: one warm-up run each, then rounds until at least
/// `minimumRounds` are done and `budget` is spent (at most `maximumRounds`). Returns the median seconds
/// per run of each, in the order given.
func secondsPerRunInTurns(
  minimumRounds: Int, maximumRounds: Int = 200, budget: Duration, _ bodies: [() async throws -> Void]
) async throws -> [Double] {
  let clock = ContinuousClock()
  for body in bodies { try await body() }  // warm-up
  var samples = Array(repeating: [Double](), count: bodies.count)
  let start = clock.now
  var rounds = 0
  while rounds < maximumRounds && (rounds < minimumRounds || clock.now - start < budget) {
    for (index, body) in bodies.enumerated() {
      let before = clock.now
      try await body()
      samples[index].append((clock.now - before).seconds)
    }
    rounds += 1
  }
  return samples.map(median)
}

/// Aggregate operations per second of `threads` threads running `body(chunk)` (which performs `chunk`
/// operations) over and over for about `duration`: the threads start together once all exist, stop at
/// a shared flag, and the rate is every thread's operations divided by the wall time from the start
/// signal until the last thread finished.
func aggregateRate(threads: Int, duration: Duration, chunk: Int, _ body: @escaping @Sendable (Int) -> Void)
  -> Double
{
  final class Shared: Sendable {
    let go = Atomic<Bool>(false)
    let stop = Atomic<Bool>(false)
    let ready = Atomic<Int>(0)
    let operations = Atomic<Int>(0)
  }
  final class Work: Sendable {
    let shared: Shared
    let chunk: Int
    let body: @Sendable (Int) -> Void
    init(_ shared: Shared, _ chunk: Int, _ body: @escaping @Sendable (Int) -> Void) {
      (self.shared, self.chunk, self.body) = (shared, chunk, body)
    }
  }
  let shared = Shared()
  var handles: [pthread_t] = []
  for _ in 0..<threads {
    let work = Unmanaged.passRetained(Work(shared, chunk, body)).toOpaque()
    var handle = pthread_t()
    let status = pthread_create(
      &handle, nil,
      { raw in
        let work = Unmanaged<Work>.fromOpaque(raw!).takeRetainedValue()
        work.shared.ready.add(1, ordering: .sequentiallyConsistent)
        while !work.shared.go.load(ordering: .acquiring) { sched_yield() }
        var operations = 0
        while !work.shared.stop.load(ordering: .relaxed) {
          work.body(work.chunk)
          operations += work.chunk
        }
        work.shared.operations.add(operations, ordering: .sequentiallyConsistent)
        return nil
      }, work)
    precondition(status == 0, "pthread_create failed: \(status)")
    handles.append(handle)
  }
  while shared.ready.load(ordering: .sequentiallyConsistent) < threads { sched_yield() }
  let clock = ContinuousClock()
  let start = clock.now
  shared.go.store(true, ordering: .releasing)
  var request = timespec(
    tv_sec: Int(duration.components.seconds), tv_nsec: Int(duration.components.attoseconds / 1_000_000_000))
  var remaining = timespec()
  while nanosleep(&request, &remaining) != 0 && errno == EINTR { request = remaining }
  shared.stop.store(true, ordering: .relaxed)
  for handle in handles { pthread_join(handle, nil) }
  let wall = clock.now - start
  return Double(shared.operations.load(ordering: .sequentiallyConsistent)) / wall.seconds
}
