/// The clock overrides expire by: seconds since some start, never going back. The system's is
/// ``MonotonicControlClock``; tests (and the stress child's `control` mode) inject one they move by hand.
package protocol ControlClock: Sendable {
  /// Seconds since the clock's start.
  var seconds: Double { get }
}

/// The system's monotonic clock (`ContinuousClock`), which a change of the wall clock does not move.
struct MonotonicControlClock: ControlClock {
  private let start = ContinuousClock.now

  var seconds: Double {
    let elapsed = ContinuousClock.now - start
    return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
  }
}

/// The time-limited overrides set through a store's control socket: the runtime value each one
/// replaced, and when it ends. They live as long as the process: nothing is written anywhere.
final class RuntimeOverrides: Sendable {
  struct Override: Sendable {
    /// The value set (the runtime layer holds it).
    var value: SettingValue
    /// The value as the status shows it (redacted for a secret).
    var shown: String
    /// When it expires, by the clock.
    var expiresAt: Double
    /// The runtime value it replaced, restored when it ends.
    var replaced: SettingValue?
  }

  let clock: any ControlClock
  private let overrides = Locked<[String: Override]>([:])

  init(clock: any ControlClock) {
    self.clock = clock
  }

  /// Records an override of `key` (replacing any earlier one, whose replaced value it keeps).
  func record(_ key: String, _ override: Override) {
    overrides.withLock { overrides in
      var override = override
      if let earlier = overrides[key] { override.replaced = earlier.replaced }
      overrides[key] = override
    }
  }

  /// Removes the override of `key` and returns it (`nil` when there is none).
  func remove(_ key: String) -> Override? {
    overrides.withLock { $0.removeValue(forKey: key) }
  }

  /// Removes the overrides whose time is up (every one, with `all`) and returns them, by key.
  func takeExpired(all: Bool = false) -> [(key: String, override: Override)] {
    let now = all ? .infinity : clock.seconds
    return overrides.withLock { overrides in
      let expired = overrides.filter { $0.value.expiresAt <= now }.sorted { $0.key < $1.key }
      for (key, _) in expired { overrides[key] = nil }
      return expired.map { (key: $0.key, override: $0.value) }
    }
  }

  /// Seconds until the next override expires, `nil` when there is none.
  var secondsToNextExpiry: Double? {
    let now = clock.seconds
    return overrides.withLock { $0.values.map(\.expiresAt).min() }.map { max(0, $0 - now) }
  }

  /// The overrides standing, by key, with their remaining time.
  var standing: [ControlOverride] {
    let now = clock.seconds
    return overrides.withLock { overrides in
      overrides.sorted { $0.key < $1.key }.map {
        ControlOverride(
          key: $0.key, value: $0.value.shown, remainingSeconds: max(0, $0.value.expiresAt - now))
      }
    }
  }
}
