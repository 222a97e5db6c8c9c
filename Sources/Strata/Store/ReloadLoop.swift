import StrataPlatform

/// A store's one reload loop: every piece of work that makes or announces a generation (reading the
/// units that may have changed, building the snapshot, publishing it to the settings, calling their
/// observers, emitting events) runs here, one batch at a time, in the order it was submitted.
///
/// While the store runs (``hold()``), the batches run on the loop's own thread, so user code runs in
/// one place whichever API started the generation: a file's edit, `SIGHUP`, `reload()`, `saveValue`, a
/// write, an override, a group's declaration. A store that does not run has no thread: a caller finding
/// the loop idle does the work itself, as the store's initializer does (no thread is started, and no
/// thread of the cooperative pool waits for one). A watcher's signal (``post(_:)``) always goes to the
/// thread, starting it if needed: a watcher's thread never does the work.
///
/// Work submitted while a batch runs is merged into the pending batch (two signals of one layer become
/// one read). Its submitter waits for that batch: blocking on a condition variable (the synchronous
/// API), suspended (the asynchronous API, which never blocks a thread of the cooperative pool), or not
/// at all (``post(_:)``). Work submitted by the loop's own work (an observer that writes a value) runs
/// after the current batch, and its submitter does not wait for it (it would wait for itself).
///
/// The thread ends after ``linger`` without work once nobody holds it. When no thread can be started
/// (the process is out of threads), the submitter does the work itself, in the same order.
final class ReloadLoop: Sendable {
  private struct State {
    var pending: PipelineWork?
    /// Tickets handed out; a ticket is the count of submissions when it was taken.
    var submitted: UInt64 = 0
    /// Every ticket up to this one has had its work done.
    var completed: UInt64 = 0
    /// The thread doing a batch now, if any (the loop's; a submitter's when no thread could start).
    var drainer: ThreadIdentity?
    /// Whether the loop's thread is running (working or waiting for work).
    var threadRuns = false

    /// Run loops that keep the thread while they run.
    var holds = 0
    /// Does one batch (the store's load, publish and announce); set once, right after the store is made.
    var perform: (@Sendable (PipelineWork) -> Void)?
    /// Asynchronous submitters waiting for their ticket.
    var waiting: [(ticket: UInt64, continuation: CheckedContinuation<Void, Never>)] = []
  }

  /// How long the thread waits for more work before it ends (nanoseconds).
  static let linger: UInt64 = 500_000_000

  /// The state, and the condition the thread waits on for work and the synchronous submitters wait on
  /// for their ticket.
  private let lock = ConditionLock(State())

  /// Sets what a batch does.
  func attach(_ perform: @escaping @Sendable (PipelineWork) -> Void) {
    lock.withLock { $0.perform = perform }
  }

  /// Runs `work` in order after everything submitted before it, and returns once it is done (at once
  /// from the loop's own work: it then runs right after the current batch).
  func run(_ work: PipelineWork) {
    guard let ticket = submit(work, mayDrainHere: true) else { return }
    lock.wait(while: { $0.completed < ticket }) { _ in }
  }

  /// Runs `work` in order after everything submitted before it; suspends (never blocks) until it is done.
  func run(_ work: PipelineWork) async {
    guard let ticket = submit(work, mayDrainHere: true) else { return }
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
      let done = lock.withLock { state in
        if state.completed >= ticket { return true }
        state.waiting.append((ticket, continuation))
        return false
      }
      if done { continuation.resume() }
    }
  }

  /// Submits `work` without waiting for it: what a watcher's thread does.
  func post(_ work: PipelineWork) {
    _ = submit(work, mayDrainHere: false)
  }

  /// Keeps the thread running until ``release()``, so that a running store's edits never wait for a
  /// thread to start.
  func hold() {
    lock.withLock { $0.holds += 1 }
  }

  /// Ends a ``hold()``: the thread ends after ``linger`` without work.
  func release() {
    lock.withLock { state in
      state.holds -= 1
      lock.broadcast()
    }
  }

  /// Queues `work`; returns its ticket, or `nil` when the caller is the loop's own work (which must not
  /// wait for itself). The thread does the work while it runs or someone holds it (it is started if
  /// needed), and for a caller that may not do it (`mayDrainHere` false); otherwise the caller does it
  /// here, unless another caller is doing it already. When no thread can start, the caller does it.
  private func submit(_ work: PipelineWork, mayDrainHere: Bool) -> UInt64? {
    let me = ThreadIdentity.current
    let (ticket, starts, reentrant) = lock.withLock { state -> (UInt64, Bool, Bool) in
      state.pending = state.pending.map { $0.merged(with: work) } ?? work
      state.submitted += 1
      let reentrant = state.drainer == me
      let starts = !state.threadRuns && (state.holds > 0 || !mayDrainHere)
      if starts { state.threadRuns = true }
      lock.broadcast()
      return (state.submitted, starts, reentrant)
    }
    if starts {
      if !DetachedThread.start({ [self] in threadLoop() }) {
        lock.withLock { state in
          state.threadRuns = false
          lock.broadcast()
        }
        drainHere(me)
      }
    } else if !reentrant && mayDrainHere {
      drainHere(me)
    }
    return reentrant ? nil : ticket
  }

  private enum Next {
    case batch(PipelineWork, through: UInt64)
    case wait
    case end
  }

  /// The thread's loop: batches as they come, until it has had no work for ``linger`` and nobody holds it.
  private func threadLoop() {
    let me = ThreadIdentity.current
    while true {
      let next = lock.wait(
        while: { $0.pending == nil || $0.drainer != nil }, atMostNanoseconds: Self.linger
      ) { state, timedOut -> Next in
        if state.drainer == nil, let work = state.pending {
          state.pending = nil
          state.drainer = me
          return .batch(work, through: state.submitted)
        }
        if timedOut && state.holds == 0 && state.pending == nil {
          state.threadRuns = false
          return .end
        }
        return .wait
      }
      switch next {
      case .end: return
      case .wait: continue
      case .batch(let work, let through): perform(work, through: through)
      }
    }
  }

  /// Does the batches pending, on the submitter's thread (the store does not run, or no thread could
  /// start), unless another thread is doing them or the running store's thread will; then the
  /// submitter waits as any other does.
  private func drainHere(_ me: ThreadIdentity) {
    while true {
      let batch = lock.withLock { state -> (PipelineWork, UInt64)? in
        // While nobody holds the loop, a caller may do the work even when the thread still lingers:
        // whoever takes a batch first does it (the `drainer` keeps them apart).
        guard state.drainer == nil, state.holds == 0 || !state.threadRuns, let work = state.pending
        else { return nil }
        state.pending = nil
        state.drainer = me
        return (work, state.submitted)
      }
      guard let (work, through) = batch else { return }
      perform(work, through: through)
    }
  }

  /// Does one batch and lets its submitters go on.
  private func perform(_ work: PipelineWork, through: UInt64) {
    lock.withLock { $0.perform }?(work)
    let resumed = lock.withLock { state in
      state.completed = through
      state.drainer = nil
      lock.broadcast()
      let (done, still) = state.waiting.partitioned { $0.ticket <= through }
      state.waiting = still
      return done
    }
    for waiter in resumed { waiter.continuation.resume() }
  }
}

extension Array {
  /// The elements that satisfy `belongs`, and the others, each in order.
  fileprivate func partitioned(_ belongs: (Element) -> Bool) -> ([Element], [Element]) {
    var yes: [Element] = []
    var no: [Element] = []
    for element in self {
      if belongs(element) { yes.append(element) } else { no.append(element) }
    }
    return (yes, no)
  }
}

/// One batch of a store's reload loop: what to read again, settings to settle, events to tell. Batches
/// submitted while another runs merge into one.
struct PipelineWork: Sendable {
  /// A reload: the layers to read again (`nil`: all; empty: none, only the runtime values or the
  /// declared keys changed), with contents already fetched for some (asynchronous layers).
  struct Reload: Sendable {
    var layers: Set<Int>?
    var fetched: [Int: LayerContents] = [:]
    /// Whether subscribers hear of new problems now (a walk of every key; settings being declared
    /// leave it to the run loop's start).
    var reportsDiagnostics = true

    func merged(with other: Reload) -> Reload {
      let layers: Set<Int>? =
        if let mine = self.layers, let theirs = other.layers { mine.union(theirs) } else { nil }
      return Reload(
        layers: layers, fetched: fetched.merging(other.fetched) { _, newer in newer },
        reportsDiagnostics: reportsDiagnostics || other.reportsDiagnostics)
    }
  }

  var reload: Reload?
  /// Newly registered settings, to be given the current snapshot.
  var settle: [any AnySettingBox] = []
  /// Events to tell after the batch's generation (a watcher's fallback).
  var events: [StoreEvent] = []
  /// Tell every standing problem not told yet (the run loop's start).
  var reportsStanding = false

  static func reload(
    _ layers: Set<Int>?, fetched: [Int: LayerContents] = [:], reportsDiagnostics: Bool = true
  ) -> PipelineWork {
    PipelineWork(reload: Reload(layers: layers, fetched: fetched, reportsDiagnostics: reportsDiagnostics))
  }

  func merged(with other: PipelineWork) -> PipelineWork {
    let reload: Reload? =
      if let mine = self.reload, let theirs = other.reload { mine.merged(with: theirs) } else {
        self.reload ?? other.reload
      }
    return PipelineWork(
      reload: reload, settle: settle + other.settle, events: events + other.events,
      reportsStanding: reportsStanding || other.reportsStanding)
  }
}
