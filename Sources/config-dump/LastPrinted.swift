import Strata
import Synchronization

/// The snapshot `config-dump --watch` last printed, behind a lock: its lines are written from the
/// store's run loop, as each reload happens.
final class LastPrinted: Sendable {
  private let snapshot: Mutex<Snapshot>

  init(_ snapshot: Snapshot) { self.snapshot = Mutex(snapshot) }

  /// Runs `body` with the snapshot, which it may replace, holding the lock.
  func withLock(_ body: (inout Snapshot) -> Void) {
    snapshot.withLock { body(&$0) }
  }
}
