/// The one place where a store decides what a unit's failure means: the bookkeeping of the unit rule.
///
/// A *unit* is what a source reads whole: a file, a drop-in directory's listing, a key-per-file
/// directory (one resolved `..data` for all its keys). A unit changes only to a state read whole; any
/// failure (open, list, permission or trust, `EMFILE`, `EIO`, parse) keeps its last good contents and is
/// retried with a backoff (100 ms, doubling, at most 5 s) without another edit; a unit found missing
/// keeps its last good contents until it has been missing for the grace period, whatever made the store
/// read it (a watcher's event, `SIGHUP`, an override, an edit of another file), and only then is it
/// gone. The layers record here what they saw and are told what to do; each load's earliest retry goes
/// with the layer's contents (``LayerContents/retryAt``), and the store's run loop reads the layer again
/// then.
///
/// Units are named by their path as the layer reports it; a key-per-file directory and a drop-in
/// directory's listing are kept apart from files of the same name.
final class UnitStates: Sendable {
  /// What to do with a unit that is missing now.
  enum Missing: Equatable {
    /// Keep the last good contents; read again at this time (monotonic nanoseconds).
    case pending(retryAt: UInt64)
    /// Missing for the whole grace period: the unit is gone.
    case gone
  }

  private struct Trouble {
    var attempts: Int
    var retryAt: UInt64
  }

  private struct State {
    var missingSince: [String: UInt64] = [:]
    /// Files found open for writing, since when.
    var writtenSince: [String: UInt64] = [:]
    var failing: [String: Trouble] = [:]
    /// The last good listing of each drop-in directory (the paths it loaded, in order).
    var listings: [String: [String]] = [:]
    /// The last good document of each unit that is not one file (a key-per-file directory).
    var documents: [String: Document] = [:]
    var grace: UInt64
  }

  /// The first retry's delay; it doubles at each failure in a row, up to ``maximumBackoff``.
  static let firstBackoff: UInt64 = 100_000_000
  /// The longest pause between two retries of a failing unit.
  static let maximumBackoff: UInt64 = 5_000_000_000

  private let state: Locked<State>
  let clock: @Sendable () -> UInt64

  /// - Parameters:
  ///   - grace: how long a unit must be missing before it is gone (nanoseconds).
  ///   - clock: monotonic nanoseconds (tests inject one).
  init(grace: UInt64 = 300_000_000, clock: @escaping @Sendable () -> UInt64 = monotonicNanoseconds) {
    state = Locked(State(grace: grace))
    self.clock = clock
  }

  /// How long a unit must be missing before it is gone, in nanoseconds.
  var grace: UInt64 {
    get { state.withLock { $0.grace } }
    set { state.withLock { $0.grace = newValue } }
  }

  /// A unit that had good contents is missing now: keep them until it has been missing for the grace
  /// period.
  func missing(_ unit: String) -> Missing {
    let now = clock()
    return state.withLock { state in
      state.failing[unit] = nil
      guard let since = state.missingSince[unit] else {
        state.missingSince[unit] = now
        return .pending(retryAt: now + state.grace)
      }
      if now >= since + state.grace {
        state.missingSince[unit] = nil
        return .gone
      }
      return .pending(retryAt: since + state.grace)
    }
  }

  /// How long a file open for writing is waited for before it is read as it is: long enough for a
  /// writer slowed by a busy machine, short enough that a file someone keeps open is read in the end.
  static let writerPatience: UInt64 = 10_000_000_000

  /// A file with a last good document is open for writing now: when to look again, or `nil` once it has
  /// been open for ``writerPatience`` (a writer that keeps it open: read it as it is, at once, until a
  /// read finds no writer).
  func waitForWriter(_ unit: String) -> UInt64? {
    let now = clock()
    return state.withLock { state in
      let since = state.writtenSince[unit] ?? now
      state.writtenSince[unit] = since
      guard now < since + Self.writerPatience else { return nil }
      return min(now + 20_000_000, since + Self.writerPatience)
    }
  }

  /// A read found no writer of the file (or could not tell).
  func noWriter(_ unit: String) {
    state.withLock { state in
      if state.writtenSince[unit] != nil { state.writtenSince[unit] = nil }
    }
  }

  /// A unit could not be read whole (or did not parse, or is not trusted now): when to try again.
  func failed(_ unit: String) -> UInt64 {
    let now = clock()
    return state.withLock { state in
      state.missingSince[unit] = nil
      var trouble = state.failing[unit] ?? Trouble(attempts: 0, retryAt: now)
      let delay = min(Self.firstBackoff << min(trouble.attempts, 16), Self.maximumBackoff)
      trouble.attempts += 1
      trouble.retryAt = now + delay
      state.failing[unit] = trouble
      return trouble.retryAt
    }
  }

  /// A unit was read whole (or is absent and had nothing to keep): its troubles are over.
  func loaded(_ unit: String) {
    state.withLock { state in
      if state.missingSince[unit] != nil { state.missingSince[unit] = nil }
      if state.failing[unit] != nil { state.failing[unit] = nil }
    }
  }

  /// The paths a drop-in directory loaded at its last good listing.
  func listing(_ directory: String) -> [String]? { state.withLock { $0.listings[directory] } }

  /// Records a drop-in directory's good listing.
  func storeListing(_ paths: [String]?, for directory: String) {
    state.withLock { $0.listings[directory] = paths }
  }

  /// The last good document of a unit that is not one file.
  func document(_ unit: String) -> Document? { state.withLock { $0.documents[unit] } }

  /// Records (or, with `nil`, forgets) the last good document of a unit that is not one file.
  func storeDocument(_ document: Document?, for unit: String) {
    state.withLock { $0.documents[unit] = document }
  }
}

extension LayerContents {
  /// Asks to be read again at `deadline` (monotonic nanoseconds), or sooner if asked already.
  mutating func retry(at deadline: UInt64) {
    retryAt = min(retryAt ?? deadline, deadline)
  }
}
