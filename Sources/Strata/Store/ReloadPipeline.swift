import StrataPlatform

/// A store's one serial reload pipeline: every piece of work that makes or announces a generation
/// (reading the layers that signalled, building the snapshot, publishing it to the settings, emitting
/// its events) runs here, one batch at a time, in the order it was submitted.
///
/// There is no thread of its own. Whoever submits work while the pipeline is idle runs it (the *drainer*)
/// and goes on running whatever was submitted meanwhile until nothing is pending; work submitted while
/// another caller drains is merged into the pending batch (two signals of one layer become one read),
/// and its submitter waits for that batch: blocking on a condition variable (the synchronous API), or
/// suspended (the asynchronous API, which never blocks a thread of the cooperative pool). Work submitted
/// by the drainer itself (an observer that writes a value) runs after the current batch, and its
/// submitter does not wait for it (it would wait for itself).
///
/// Nothing here runs on the watcher's thread: a watcher only signals (``SettingsStore/run(reloadOnHangup:notifying:onReady:)``
/// hands the signal to the run loop's task, which drains).
final class ReloadPipeline: Sendable {
  private struct State {
    var pending: PipelineWork?
    /// Tickets handed out; a ticket is the count of submissions when it was taken.
    var submitted: UInt64 = 0
    /// Every ticket up to this one has had its work done.
    var completed: UInt64 = 0
    /// The thread draining now, if any.
    var drainer: ThreadIdentity?
    /// Asynchronous submitters waiting for their ticket.
    var waiting: [(ticket: UInt64, continuation: CheckedContinuation<Void, Never>)] = []
  }

  /// The state, and the condition the synchronous waiters block on until their ticket is completed.
  private let lock = ConditionLock(State())

  /// Runs `work` in order after everything submitted before it, and returns once it is done (or at
  /// once, when called from the pipeline's own work: then it runs right after the current batch).
  /// - Parameter perform: does one batch (the store's load, publish and announce), when this caller
  ///   drains.
  func run(_ work: PipelineWork, perform: (PipelineWork) -> Void) {
    let (ticket, role) = submit(work)
    switch role {
    case .drainer: drain(perform)
    case .reentrant: return
    case .waiter:
      lock.wait(while: { $0.completed < ticket }) { _ in }
    }
  }

  /// Runs `work` in order after everything submitted before it; suspends (never blocks) while another
  /// caller drains.
  func run(_ work: PipelineWork, perform: (PipelineWork) -> Void) async {
    let (ticket, role) = submit(work)
    switch role {
    case .drainer: drain(perform)
    case .reentrant: return
    case .waiter:
      await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
        let done = lock.withLock { state in
          if state.completed >= ticket { return true }
          state.waiting.append((ticket, continuation))
          return false
        }
        if done { continuation.resume() }
      }
    }
  }

  private enum Role {
    case drainer, waiter, reentrant
  }

  private func submit(_ work: PipelineWork) -> (UInt64, Role) {
    let me = ThreadIdentity.current
    return lock.withLock { state in
      state.pending = state.pending.map { $0.merged(with: work) } ?? work
      state.submitted += 1
      guard let drainer = state.drainer else {
        state.drainer = me
        return (state.submitted, .drainer)
      }
      return (state.submitted, drainer == me ? .reentrant : .waiter)
    }
  }

  /// Runs batches until nothing is pending, then lets the next caller drain.
  private func drain(_ perform: (PipelineWork) -> Void) {
    while true {
      let batch = lock.withLock { state -> (PipelineWork, UInt64)? in
        guard let work = state.pending else {
          state.drainer = nil
          return nil
        }
        state.pending = nil
        return (work, state.submitted)
      }
      guard let (work, through) = batch else { return }
      perform(work)
      let resumed = lock.withLock { state in
        state.completed = through
        lock.broadcast()
        let (done, still) = state.waiting.partitioned { $0.ticket <= through }
        state.waiting = still
        return done
      }
      for waiter in resumed { waiter.continuation.resume() }
    }
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

/// One batch of a store's pipeline: what to read again, settings to settle, events to tell. Batches
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
