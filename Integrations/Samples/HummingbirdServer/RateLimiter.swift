import Synchronization

/// Counts requests in one-second windows.
final class RateLimiter: Sendable {
  private let start = ContinuousClock.now
  /// The current window (seconds since start) and the requests counted in it.
  private let window = Mutex<(second: Int64, count: Int)>((0, 0))

  /// Whether one more request fits in this second's `limit`.
  func allow(perSecond limit: Int) -> Bool {
    let second = start.duration(to: .now).components.seconds
    return window.withLock { window in
      if window.second != second { window = (second, 0) }
      window.count += 1
      return window.count <= limit
    }
  }
}
