/// How an etcd source waits between attempts to reach the server: a delay that starts at
/// ``initialDelay`` and grows by ``multiplier`` after each failure, up to ``maximumDelay``.
public struct EtcdRetry: Sendable, Hashable {
  /// The wait after the first failure.
  public var initialDelay: Duration
  /// The longest wait.
  public var maximumDelay: Duration
  /// How much each failure lengthens the wait.
  public var multiplier: Double

  /// Creates a retry policy (default: 100 ms, doubling, at most 10 s).
  public init(
    initialDelay: Duration = .milliseconds(100), maximumDelay: Duration = .seconds(10), multiplier: Double = 2
  ) {
    self.initialDelay = initialDelay
    self.maximumDelay = max(initialDelay, maximumDelay)
    self.multiplier = max(1, multiplier)
  }

  /// The wait after `failures` failures in a row (1 or more).
  public func delay(afterFailures failures: Int) -> Duration {
    var delay = initialDelay
    for _ in 1..<max(1, failures) {
      delay = delay * multiplier
      if delay >= maximumDelay { return maximumDelay }
    }
    return min(delay, maximumDelay)
  }
}
