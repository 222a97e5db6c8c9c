import StrataPlatform

/// One watcher's engine: which directories its targets need, what events mean for them, and its
/// timers. The process's ``WatcherHub`` owns the backend's descriptor and the thread and hands it its
/// events; what cannot be watched is polled (``StatPoller``).
final class WatcherCore: @unchecked Sendable {
  // @unchecked: everything mutable lives in `state` (a `Locked`); the `let`s are set once in init.
  struct State {
    var targets: [String] = []
    var plans: [String: WatchPlan] = [:]
    var watchByDirectory: [String: Int32] = [:]
    var directoriesByWatch: [Int32: Set<String>] = [:]
    /// Targets that vanished, with the time after which they are reported if still missing.
    var missingDeadlines: [String: UInt64] = [:]
    /// The targets polled instead of watched, and their settle check.
    var poller: StatPoller
    /// Directories whose watch could not be set at the last try, with why: retried at every re-arm and
    /// every poll, so that a watch comes back as soon as it can be set.
    var unwatched: [String: WatcherFallback] = [:]
    /// The fallbacks in force now (polled paths), in the order they began.
    var fallbacks: [WatcherFallback] = []
    var newFallbacks: [WatcherFallback] = []
    var stopped = false
  }

  let state: Locked<State>
  let clock: @Sendable () -> UInt64
  let grace: UInt64
  let pollInterval: UInt64
  let pollsOnly: Bool
  let hub: WatcherHub
  /// Whether the hub is this watcher's alone (tests), to be shut down with it.
  let ownsHub: Bool
  let continuation: AsyncStream<WatchBatch>.Continuation
  /// Where batches go instead of ``continuation`` once ``deliver(to:)`` is called: the store's
  /// ``FileSignals``, called on the thread that found the batch (the hub's), so that the store reloads
  /// with no task hop after the kernel's event.
  private let receiver = Locked<BatchReceiver?>(nil)

  init(
    hub: WatcherHub, ownsHub: Bool, grace: UInt64, pollInterval: UInt64, pollsOnly: Bool,
    continuation: AsyncStream<WatchBatch>.Continuation
  ) {
    self.hub = hub
    self.ownsHub = ownsHub
    self.clock = hub.clock
    self.grace = grace
    self.pollInterval = pollInterval
    self.pollsOnly = pollsOnly
    self.continuation = continuation
    state = Locked(State(poller: StatPoller(interval: pollInterval)))
    let loss = hub.register(self)
    if let loss, !pollsOnly {
      // Before any batch can be sent (no receiver yet): the fallback goes with the first batch.
      state.withLock { announce(loss, &$0) }
    }
  }

  /// Whether the backend's events arrive for this watcher (else everything is polled).
  private var usesEvents: Bool { !pollsOnly && hub.source != nil }

  /// The backend's events are lost for good (the hub's descriptor failed): every target is polled from now on, a
  /// fallback says why, and every target is reported, since an edit made while the descriptor was
  /// failing may have been missed.
  func eventsLost(_ loss: EventSourceLoss) {
    let batch = state.withLock { state -> WatchBatch? in
      guard !state.stopped, !pollsOnly else { return nil }
      announce(loss, &state)
      rearm(&state)
      return takeBatch(&state, Set(state.targets))
    }
    if let batch { send(batch) }
  }

  /// Records the fallback of a watcher that polls every path because the backend has no events, once.
  private func announce(_ loss: EventSourceLoss, _ state: inout State) {
    guard !state.fallbacks.contains(where: { $0.path == "*" }) else { return }
    let message =
      switch loss {
      case .noEvents:
        "\(PollingBackend.reason); polling every path every \(describeInterval(pollInterval))"
      case .unavailable(let error): hub.backend.unavailableAdvice(error)
      case .failed(let reason):
        "\(hub.backend.name) failed: \(reason); polling every \(describeInterval(pollInterval))"
      }
    let fallback = WatcherFallback(path: "*", message: message)
    // Every path is polled now: the fallbacks of single directories are part of this one.
    state.fallbacks = [fallback]
    state.newFallbacks.append(fallback)
  }

  // MARK: Targets

  func setTargets(_ targets: [String]) {
    state.withLock { state in
      state.targets = targets
      rearm(&state)
    }
    hub.wake()  // the poll timeout may have changed
  }

  /// Hands batches to `receiver`, on the thread that finds them, instead of ``continuation``; `receiver`
  /// also hears when the watcher stops (the stream still ends then).
  func deliver(to receiver: BatchReceiver) {
    self.receiver.withLock { $0 = receiver }
  }

  private func send(_ batch: WatchBatch) {
    if let receiver = receiver.withLock({ $0 }) {
      receiver.receive(batch)
    } else {
      continuation.yield(batch)
    }
  }

  /// Recomputes every target's plan and makes the watches match it. Returns the targets that gained a
  /// new watch: whatever happened in those directories before the watch existed was not seen, so they
  /// must be read again.
  ///
  /// A directory that vanishes between the plan and its watch (`ENOENT`: a delete-and-recreate storm)
  /// is planned again at once, around it; one whose watch cannot be set (`ENOSPC`, `EMFILE`) is polled
  /// and retried at every re-arm and poll, and leaves polling as soon as its watch is set.
  @discardableResult
  private func rearm(_ state: inout State) -> Set<String> {
    guard usesEvents else {
      // Watches of a lost event source are dead (the hub forgot them): nothing to remove.
      state.watchByDirectory = [:]
      state.directoriesByWatch = [:]
      state.unwatched = [:]
      state.plans = Dictionary(uniqueKeysWithValues: state.targets.map { ($0, WatchPlan(target: $0)) })
      state.poller.pollOnly(state.targets)
      state.poller.schedule(now: clock())
      return []
    }
    var added: Set<String> = []
    for pass in 1...4 {
      let vanished = arm(&state, added: &added, isLastPass: pass == 4)
      if !vanished { break }
    }
    var currentFallbacks = state.fallbacks.filter { fallback in
      fallback.path == "*" || state.unwatched[fallback.path] != nil
        || (state.plans[fallback.path]?.tooManyHops ?? false)
    }
    for target in state.targets where state.plans[target]?.tooManyHops == true {
      note(
        &currentFallbacks, &state,
        WatcherFallback(path: target, message: "more than 40 symlinks on the way; polling it"))
    }
    for fallback in state.unwatched.values.sorted(by: { $0.path < $1.path }) {
      note(&currentFallbacks, &state, fallback)
    }
    state.fallbacks = currentFallbacks
    for target in state.targets {
      let plan = state.plans[target]
      let needsPolling =
        plan?.tooManyHops == true || plan?.directories.contains { state.unwatched[$0] != nil } == true
      if needsPolling {
        state.poller.poll(target)
      } else {
        state.poller.stopPolling(target)
      }
    }
    state.poller.schedule(now: clock())
    return Set(state.targets.filter { !(state.plans[$0]?.directories.isDisjoint(with: added) ?? true) })
  }

  /// One pass: plans every target, drops the watches no plan needs, and sets the missing ones.
  /// - Returns: whether a planned directory had vanished by the time its watch was set (plan again).
  private func arm(_ state: inout State, added: inout Set<String>, isLastPass: Bool) -> Bool {
    var wanted: Set<String> = []
    var plans: [String: WatchPlan] = [:]
    for target in state.targets {
      let plan = WatchPlan(target: target)
      plans[target] = plan
      wanted.formUnion(plan.directories)
    }
    state.plans = plans
    for (directory, watch) in state.watchByDirectory where !wanted.contains(directory) {
      state.watchByDirectory[directory] = nil
      state.directoriesByWatch[watch]?.remove(directory)
      if state.directoriesByWatch[watch]?.isEmpty == true {
        state.directoriesByWatch[watch] = nil
        hub.removeWatch(watch, for: self)
      }
    }
    state.unwatched = state.unwatched.filter { wanted.contains($0.key) }
    var vanished = false
    for directory in wanted where state.watchByDirectory[directory] == nil {
      do {
        // A second watch on the same inode returns the same descriptor: keep several paths per watch.
        let watch = try hub.addWatch(directory, for: self)
        state.watchByDirectory[directory] = watch
        state.directoriesByWatch[watch, default: []].insert(directory)
        state.unwatched[directory] = nil
        added.insert(directory)
      } catch {
        if (error.rawValue == ENOENT || error.rawValue == ENOTDIR) && !isLastPass {
          vanished = true
          continue
        }
        let advice = hub.backend.watchFailureAdvice(error)
        state.unwatched[directory] = WatcherFallback(path: directory, message: advice + "; polling instead")
      }
    }
    return vanished
  }

  /// Adds a fallback to those in force, announcing it if it is new.
  private func note(_ current: inout [WatcherFallback], _ state: inout State, _ fallback: WatcherFallback) {
    guard !current.contains(where: { $0.path == fallback.path }) else { return }
    current.append(fallback)
    state.newFallbacks.append(fallback)
  }

  // MARK: Events and timers

  /// Processes pending events and due timers now (tests drive a private hub this way).
  func pump() { hub.pump() }

  /// Whether a watch descriptor is one of this watcher's.
  func owns(_ watch: Int32) -> Bool { state.withLock { $0.directoriesByWatch[watch] != nil } }

  /// Handles this watcher's events (from the hub), fires due timers, and reports what changed.
  func process(_ events: [FileEvent]) {
    let batch = state.withLock { state -> WatchBatch? in
      var changed: Set<String> = []
      var needsRearm = false
      for event in events { handle(event, &state, changed: &changed, needsRearm: &needsRearm) }
      if needsRearm {
        for target in rearm(&state) { consider(target, &state, changed: &changed) }
      }
      fireTimers(&state, changed: &changed)
      guard !changed.isEmpty || !state.newFallbacks.isEmpty else { return nil }
      return takeBatch(&state, changed)
    }
    if let batch { send(batch) }
  }

  private func takeBatch(_ state: inout State, _ paths: Set<String>) -> WatchBatch {
    defer { state.newFallbacks = [] }
    return WatchBatch(paths: paths, fallbacks: state.newFallbacks)
  }

  private func handle(
    _ event: FileEvent, _ state: inout State, changed: inout Set<String>, needsRearm: inout Bool
  ) {
    if event.kind.contains(.overflow) {
      // Events were lost: re-arm everything and read every target again.
      needsRearm = true
      changed.formUnion(state.targets)
      return
    }
    let directories = state.directoriesByWatch[event.watch] ?? []
    if event.kind.contains(.watchEnded) {
      state.directoriesByWatch[event.watch] = nil
      for directory in directories { state.watchByDirectory[directory] = nil }
      hub.forget(event.watch)
      needsRearm = true
    }
    if event.kind.contains(.directoryGone) { needsRearm = true }
    guard !event.name.isEmpty else {
      // The watched directory itself went away or moved: every target planned through it is a candidate.
      for target in state.targets
      where !(state.plans[target]?.directories.isDisjoint(with: directories) ?? true) {
        consider(target, &state, changed: &changed)
      }
      return
    }
    let completed = event.kind.contains(.completed)
    let vanished = event.kind.contains(.vanished)
    let created = event.kind.contains(.created)
    let written = event.kind.contains(.written)
    for directory in directories {
      let path = joinPath(directory, event.name)
      // Layers that read a file while its writer has not closed it keep its last good document.
      if completed || vanished {
        WritesInProgress.end(path)
      } else if written || (created && FileSystem.entry(at: path) == .file) {
        WritesInProgress.begin(path, at: clock())
      }
      for target in state.targets {
        guard let plan = state.plans[target] else { continue }
        let inChain = plan.interest.contains(path)
        let inTargetDirectory =
          plan.directoryTarget == directory || (plan.directoryTarget != nil && target == directory)
        guard inChain || inTargetDirectory else { continue }
        // A chain component (a directory, a symlink — the target itself may become one) that appears,
        // goes or is swapped changes the plan; a plain file saved over or removed at the chain's end
        // (every editor's save) does not, and re-arming costs a walk of every target's chain.
        if inChain && (path != target || created || completed || vanished)
          && !(path == plan.plainEnd && [.file, .missing].contains(FileSystem.entry(at: path)))
        {
          needsRearm = true
        }
        if created {
          // A new regular file is not complete until it is closed; a new directory or symlink is.
          let kind = FileSystem.entry(at: path)
          if kind == .directory || kind == .symlink { consider(target, &state, changed: &changed) }
        } else if completed {
          consider(target, &state, changed: &changed)
        } else if vanished {
          // A regular file there now was created after this one went (a rename-away save: vim's, an
          // editor's backup rename, a deploy tool's): it is not complete until its own close or rename,
          // which reports it. Reading it now could read it empty or half written.
          let replacedByANewFile =
            (path == target || path == plan.plainEnd) && FileSystem.entry(at: path) == .file
          if !replacedByANewFile { consider(target, &state, changed: &changed) }
        }
      }
    }
  }

  /// Reports a target now, or, if it is missing, once the grace period has passed.
  private func consider(_ target: String, _ state: inout State, changed: inout Set<String>) {
    if FileSystem.entry(at: target) == .missing {
      if state.missingDeadlines[target] == nil { state.missingDeadlines[target] = clock() + grace }
    } else {
      state.missingDeadlines[target] = nil
      changed.insert(target)
    }
  }

  private func fireTimers(_ state: inout State, changed: inout Set<String>) {
    let now = clock()
    for (target, deadline) in state.missingDeadlines where deadline <= now {
      state.missingDeadlines[target] = nil
      if FileSystem.entry(at: target) == .missing { changed.insert(target) }
    }
    if let settled = state.poller.check(now: now) {
      changed.formUnion(settled)
      // Watches that could not be set are tried again: polling ends as soon as one can be.
      if usesEvents && !state.unwatched.isEmpty {
        for target in rearm(&state) { consider(target, &state, changed: &changed) }
      }
    }
  }

  /// The nearest timer (grace period, polling), or `nil`.
  func nextDeadline() -> UInt64? {
    state.withLock { state in
      (Array(state.missingDeadlines.values) + (state.poller.nextPoll.map { [$0] } ?? [])).min()
    }
  }

  func stop() {
    let first = state.withLock { state -> Bool in
      defer { state.stopped = true }
      return !state.stopped
    }
    guard first else { return }
    hub.unregister(self)
    if ownsHub { hub.shutdown() }
    continuation.finish()
    receiver.withLock { receiver in
      defer { receiver = nil }
      return receiver
    }?.stop()
  }
}

/// What a watcher's batches are handed to directly, on the thread that finds them (see
/// ``WatcherCore/deliver(to:)``). While they run, the hub's other watchers wait: their events queue in
/// the kernel (a queue overflow rescans everything).
struct BatchReceiver: Sendable {
  /// Takes one batch.
  var receive: @Sendable (WatchBatch) -> Void
  /// The watcher stopped: no batch comes after this.
  var stop: @Sendable () -> Void
}
