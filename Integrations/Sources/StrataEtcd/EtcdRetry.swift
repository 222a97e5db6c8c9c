/// How an etcd source waits between attempts to reach the server: a delay that starts at
/// ``initialDelay`` and grows by ``multiplier`` after each failure, up to ``maximumDelay``; each wait
/// is that delay shortened by a random part of up to ``jitter`` of it, so that the hosts of a fleet
/// that lost etcd together do not all retry at the same instants.
public struct EtcdRetry: Sendable, Hashable {
  /// The wait after the first failure.
  public var initialDelay: Duration
  /// The longest wait.
  public var maximumDelay: Duration
  /// How much each failure lengthens the wait.
  public var multiplier: Double
  /// The largest fraction of each delay that is left out at random, from 0 (every host waits the
  /// whole delay, in step) to 1 (a wait anywhere between none and the delay). The default, 0.5, is
  /// "equal jitter": a wait between half the delay and the delay.
  public var jitter: Double

  /// Creates a retry policy (default: 100 ms, doubling, at most 10 s, each wait between half that
  /// delay and all of it).
  public init(
    initialDelay: Duration = .milliseconds(100), maximumDelay: Duration = .seconds(10),
    multiplier: Double = 2,
    jitter: Double = 0.5
  ) {
    self.initialDelay = initialDelay
    self.maximumDelay = max(initialDelay, maximumDelay)
    self.multiplier = max(1, multiplier)
    self.jitter = jitter.isNaN ? 0 : min(1, max(0, jitter))
  }

  /// The delay after `failures` failures in a row (1 or more), before jitter: the longest wait.
  public func delay(afterFailures failures: Int) -> Duration {
    var delay = initialDelay
    for _ in 1..<max(1, failures) {
      delay = delay * multiplier
      if delay >= maximumDelay { return maximumDelay }
    }
    return min(delay, maximumDelay)
  }

  /// The wait after `failures` failures in a row: ``delay(afterFailures:)`` less a random part of
  /// up to ``jitter`` of it, drawn from `generator`.
  public func wait(
    afterFailures failures: Int, using generator: inout some RandomNumberGenerator
  ) -> Duration {
    let delay = delay(afterFailures: failures)
    guard jitter > 0 else { return delay }
    return delay * Double.random(in: (1 - jitter)...1, using: &generator)
  }

  /// The wait after `failures` failures in a row, with the system's random numbers.
  func wait(afterFailures failures: Int) -> Duration {
    var generator = SystemRandomNumberGenerator()
    return wait(afterFailures: failures, using: &generator)
  }
}
