import Strata
import Synchronization

/// What `config-dump --watch` has printed, behind a lock: its lines are written from the store's run
/// loop, as each reload happens.
final class LastPrinted: Sendable {
  /// The snapshot last printed, the rejected edits told so far, and the kept values told so far.
  struct State {
    var snapshot: Snapshot
    /// The `failed` and `rejected` events printed (a rejected edit the typed view reports again is not repeated).
    var failures: [StrataError] = []
    /// Per key, the rejected value whose "kept" line was printed.
    var kept: [String: SettingValue] = [:]
  }

  private let state: Mutex<State>

  init(_ snapshot: Snapshot) { self.state = Mutex(State(snapshot: snapshot)) }

  /// Runs `body` with the state, which it may change, holding the lock.
  func withLock(_ body: (inout State) -> Void) {
    state.withLock { body(&$0) }
  }
}
