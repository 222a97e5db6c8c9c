/// When a running store reads a layer again by itself: a unit that failed (or went missing) keeps its
/// last good contents and asks to be read again (``LayerContents/retryAt``); the run loop signals the
/// layer at that time, as an edit would, without another edit.
final class RetrySchedule: Sendable {
  private let deadlines = Locked<[Int: UInt64]>([:])
  private let changes: AsyncStream<Void>
  private let changed: AsyncStream<Void>.Continuation
  private let clock: @Sendable () -> UInt64

  init(clock: @escaping @Sendable () -> UInt64 = monotonicNanoseconds) {
    (changes, changed) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
    self.clock = clock
  }

  /// Sets each layer's retry time from its contents after a load (`nil`: none).
  func update(_ contents: [LayerContents?]) {
    let new = Dictionary(
      uniqueKeysWithValues: contents.enumerated().compactMap { index, contents in
        contents?.retryAt.map { (index, $0) }
      })
    let differs = deadlines.withLock { deadlines in
      defer { deadlines = new }
      return deadlines != new
    }
    if differs { changed.yield() }
  }

  /// Signals each layer when its time comes, until ``finish()``.
  func run(signal: @escaping @Sendable (Int) -> Void) async {
    var sleeper: Task<Void, Never>?
    for await _ in changes {
      sleeper?.cancel()
      sleeper = Task { [self] in
        while !Task.isCancelled, let next = deadlines.withLock({ $0.values.min() }) {
          let now = clock()
          if next > now {
            try? await Task.sleep(for: .nanoseconds(Int64(clamping: next - now)))
            continue
          }
          let due = deadlines.withLock { deadlines in
            let due = deadlines.filter { $0.value <= now }.map(\.key)
            for index in due { deadlines[index] = nil }
            return due
          }
          for index in due.sorted() { signal(index) }
        }
      }
    }
    sleeper?.cancel()
  }

  /// Ends ``run(signal:)``.
  func finish() { changed.finish() }
}
