import StrataPlatform

/// Why the hub has no event descriptor, so that every watcher polls every path.
enum EventSourceLoss: Sendable, Equatable {
  /// The backend has no events (``PollingBackend``: no event backend in this build).
  case noEvents
  /// The backend could not open (inotify: `EMFILE`, `fs.inotify.max_user_instances` reached).
  case unavailable(Errno)
  /// The descriptor failed while in use; the reason names the call and the error (`poll: …`).
  case failed(String)
}

/// The process's one event source (its ``FileEventBackend``: inotify on Linux) and the one thread that
/// waits on it.
///
/// Every ``FileWatcher`` of the process registers here. The hub owns the backend's event descriptor, a
/// wake pipe, and the thread blocked in `poll()` on them (with the nearest timer of any watcher as the
/// timeout, so nothing wakes while nothing changes). Watches are reference-counted per watcher, since a
/// second watch on the same directory returns the same number (`inotify_add_watch` does); events are
/// handed to the watchers that own their watch, and a queue overflow to all of them. With a backend
/// that has no events (``PollingBackend``), the thread only serves the watchers' polling timers.
///
/// The thread never ends on an error (only ``shutdown()`` ends it). `EINTR` from `poll` is retried. A
/// transient failure (`ENOMEM`, `EAGAIN`) pauses 10 ms, doubling at each failure in a row, and tries
/// again; the fifth in a row, any other `poll` error, a `read` error other than `EAGAIN`/`EINTR`, or the
/// descriptor reported invalid (`POLLNVAL`, `POLLERR`, `POLLHUP`) gives up the backend's events for good
/// (``EventSourceLoss/failed(_:)``): every watcher polls every path from then on, says why in a fallback,
/// and reports every target once, since edits may have been missed. A `poll` that keeps failing after
/// that pauses for the next timer (at most ``pauseLimit`` ms, so that a wake-up is served soon) instead
/// of waiting on the descriptors, and reads the pipes without waiting. Without a wake pipe (`pipe`
/// failed, or `poll` reports the pipe unusable), `poll` waits at most ``pauseLimit`` ms, so that new
/// targets and ``shutdown()`` are still noticed. A thread that could not be created is created again at the next wake-up.
final class WatcherHub: @unchecked Sendable {
  // @unchecked: the `let`s are set once in init; everything mutable is in `state` (a `Locked`).
  struct State {
    var cores: [ObjectIdentifier: WeakCore] = [:]
    /// For each watch descriptor, how many of each watcher's directories use it.
    var users: [Int32: [ObjectIdentifier: Int]] = [:]
    /// The backend's event descriptor, or `nil` when it has none or it is lost (then everything is
    /// polled).
    var source: Int32?
    /// Why `source` is `nil`.
    var loss: EventSourceLoss?
    /// Descriptors given up while still ours, closed in deinit (not at once: another thread may be
    /// setting a watch on the number, which must not reach a descriptor that reuses it).
    var retired: [Int32] = []
    /// `poll` failures in a row.
    var pollFailures = 0
    /// Whether the wake pipe was reported invalid (then it is no longer polled).
    var wakeBroken = false
    var hangup: Int32?
    /// Subscribers to `SIGHUP` (``hangups()``).
    var hangupContinuations: [Int: AsyncStream<Void>.Continuation] = [:]
    var nextHangupContinuation = 0
    var startsThread = false
    var threadStarting = false
    var thread: JoinableThread?
    var wakeUps = 0
    /// Whether the thread is about to block, or blocks, in `poll` with no timeout: nothing is due
    /// until an event comes (tests measure idleness from here).
    var sleepsUntilEvent = false
    var stopped = false
  }

  struct WeakCore {
    weak var core: WatcherCore?
  }

  /// The hub of the process, started on first use.
  static let shared = WatcherHub(
    backend: preferredFileEventBackend(), clock: monotonicNanoseconds, startsThread: true)

  /// The longest pause after a failed `poll`, and the longest `poll` without a wake pipe, in ms.
  static let pauseLimit: Int32 = 100
  /// The first pause after a transient `poll` failure (`ENOMEM`, `EAGAIN`), in ms; it doubles at each
  /// failure in a row.
  static let firstPause: Int32 = 10
  /// How many transient `poll` failures in a row give up the backend's events.
  static let transientFailureLimit = 5

  let state = Locked(State())
  let backend: any FileEventBackend
  let clock: @Sendable () -> UInt64
  /// The wake pipe's ends, or -1 when it could not be created.
  let wakeRead: Int32
  let wakeWrite: Int32

  init(backend: any FileEventBackend, clock: @escaping @Sendable () -> UInt64, startsThread: Bool) {
    self.backend = backend
    self.clock = clock
    let wake = nonBlockingPipe()
    wakeRead = wake?.read ?? -1
    wakeWrite = wake?.write ?? -1
    let source: Result<Int32?, Errno> = Result { () throws(Errno) in try backend.open() }
    state.withLock { state in
      switch source {
      case .success(let fd?): state.source = fd
      case .success(nil): state.loss = .noEvents
      case .failure(let error): state.loss = .unavailable(error)
      }
      state.startsThread = startsThread
    }
    startThreadIfNeeded()
  }

  deinit {
    let descriptors = state.withLock { state in state.retired + (state.source.map { [$0] } ?? []) }
    for fd in descriptors + [wakeRead, wakeWrite] where fd >= 0 { close(fd) }
  }

  /// The event descriptor, or `nil` when the backend has none, could not open, or failed (then
  /// everything is polled).
  var source: Int32? { state.withLock { $0.source } }

  /// Why there is no event descriptor, if there is none.
  var loss: EventSourceLoss? { state.withLock { $0.loss } }

  /// Adds a watcher.
  /// - Returns: why events are lost, if they are: then the watcher polls every path. A loss after this
  ///   call is told to the watcher (``WatcherCore/eventsLost(_:)``).
  func register(_ core: WatcherCore) -> EventSourceLoss? {
    let loss = state.withLock { state in
      state.cores[ObjectIdentifier(core)] = WeakCore(core: core)
      return state.loss
    }
    startThreadIfNeeded()
    return loss
  }

  /// Forgets a watcher and removes the watches only it used.
  func unregister(_ core: WatcherCore) {
    let id = ObjectIdentifier(core)
    let (unused, source) = state.withLock { state -> ([Int32], Int32?) in
      state.cores[id] = nil
      var unused: [Int32] = []
      for (watch, users) in state.users where users[id] != nil {
        state.users[watch]?[id] = nil
        if state.users[watch]?.isEmpty == true {
          state.users[watch] = nil
          unused.append(watch)
        }
      }
      return (unused, state.source)
    }
    if let source { for watch in unused { backend.removeWatch(source, watch: watch) } }
  }

  /// Watches a directory for a watcher, through the backend.
  func addWatch(_ path: String, for core: WatcherCore) throws(Errno) -> Int32 {
    let (source, loss) = state.withLock { ($0.source, $0.loss) }
    guard let source else {
      if case .unavailable(let error) = loss { throw error }
      throw Errno(loss == .noEvents ? ENOSYS : EBADF)
    }
    let watch = try backend.addWatch(source, directory: path)
    state.withLock { state in
      // Lost meanwhile: the watch is on a descriptor no one reads, and the watcher hears of the loss.
      guard state.source == source else { return }
      state.users[watch, default: [:]][ObjectIdentifier(core), default: 0] += 1
    }
    return watch
  }

  /// Releases one use of a watch; the watch is removed when no watcher uses it.
  func removeWatch(_ watch: Int32, for core: WatcherCore) {
    let id = ObjectIdentifier(core)
    let (unused, source) = state.withLock { state -> (Bool, Int32?) in
      guard let count = state.users[watch]?[id] else { return (false, nil) }
      state.users[watch]?[id] = count > 1 ? count - 1 : nil
      if state.users[watch]?.isEmpty == true {
        state.users[watch] = nil
        return (true, state.source)
      }
      return (false, nil)
    }
    if unused, let source { backend.removeWatch(source, watch: watch) }
  }

  /// A watch the kernel dropped (`IN_IGNORED`): forget it for everyone.
  func forget(_ watch: Int32) {
    _ = state.withLock { $0.users.removeValue(forKey: watch) }
  }

  /// Gives up the backend's events for good: every watcher polls every path from now on, says why, and reports
  /// every target (edits may have been missed). Does nothing if `fd` is no longer the descriptor.
  /// - Parameter closes: whether the descriptor is still ours to close (not after `EBADF` or `POLLNVAL`:
  ///   its number may belong to another file by now).
  func giveUpEvents(_ fd: Int32, reason: String, closes: Bool) {
    let cores = state.withLock { state -> [WatcherCore]? in
      guard state.source == fd else { return nil }
      state.source = nil
      state.loss = .failed(reason)
      state.users = [:]
      if closes { state.retired.append(fd) }
      return state.cores.values.compactMap(\.core)
    }
    for core in cores ?? [] { core.eventsLost(.failed(reason)) }
  }

  /// Reads pending events, hands each watcher its own (all of them an overflow), and fires timers.
  func pump() {
    var events: [FileEvent] = []
    if let source {
      do {
        events = try backend.readEvents(source)
      } catch {
        giveUpEvents(source, reason: "read: \(error)", closes: error.rawValue != EBADF)
      }
    }
    let (cores, users) = state.withLock { state in (state.cores.values.compactMap(\.core), state.users) }
    for core in cores {
      let id = ObjectIdentifier(core)
      let mine = events.filter { event in
        event.kind.contains(.overflow) || users[event.watch]?[id] != nil || core.owns(event.watch)
      }
      core.process(mine)
    }
  }

  func wake() {
    startThreadIfNeeded()
    guard wakeWrite >= 0 else { return }
    var byte: UInt8 = 1
    _ = write(wakeWrite, &byte, 1)
  }

  /// `SIGHUP`s from now on (and one queued before, if any), as a stream; installs the handler.
  func hangups() -> AsyncStream<Void> {
    let (stream, continuation) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
    guard let fd = Hangup.readDescriptor() else {
      continuation.finish()
      return stream
    }
    let id = state.withLock { state in
      defer { state.nextHangupContinuation += 1 }
      state.hangupContinuations[state.nextHangupContinuation] = continuation
      state.hangup = fd
      return state.nextHangupContinuation
    }
    continuation.onTermination = { [weak self] _ in
      _ = self?.state.withLock { $0.hangupContinuations.removeValue(forKey: id) }
    }
    wake()
    return stream
  }

  // MARK: The thread

  /// Ends the thread (a private hub, when its watcher stops).
  func shutdown() {
    let thread = state.withLock { state -> JoinableThread? in
      state.stopped = true
      defer { state.thread = nil }
      return state.thread
    }
    wake()
    if let thread, !thread.isCurrent { thread.join() }
  }

  /// Starts the thread if the hub has one and it is not running: at init, and again at the next
  /// registration or wake-up if `pthread_create` failed (`EAGAIN`: the process's thread limit).
  private func startThreadIfNeeded() {
    let starts = state.withLock { state -> Bool in
      guard state.startsThread, state.thread == nil, !state.threadStarting, !state.stopped else {
        return false
      }
      state.threadStarting = true
      return true
    }
    guard starts else { return }
    // The thread holds the hub until `run` returns (after `shutdown`).
    let thread = JoinableThread.start { self.run() }
    state.withLock { state in
      state.threadStarting = false
      state.thread = thread
    }
  }

  /// Milliseconds until the nearest timer of any watcher, or -1 (sleep until an event).
  private func pollTimeout() -> Int32 {
    let cores = state.withLock { $0.cores.values.compactMap(\.core) }
    guard let next = cores.compactMap({ $0.nextDeadline() }).min() else { return -1 }
    let now = clock()
    return next <= now ? 0 : Int32(min((next - now + 999_999) / 1_000_000, 60_000))
  }

  private func run() {
    while turn() {}
  }

  /// One turn of the thread: waits in `poll` for the wake pipe, the event descriptor, `SIGHUP` or the nearest timer
  /// (or, when `poll` fails, pauses instead), then serves what is ready and fires due timers.
  /// - Returns: `false` once the hub is shut down.
  func turn() -> Bool {
    let (source, hangup, wakeBroken) = state.withLock { ($0.source, $0.hangup, $0.wakeBroken) }
    // A negative descriptor is skipped by `poll`: the slots stay where the code below looks for them.
    var fds = [
      pollfd(fd: wakeBroken ? -1 : wakeRead, events: Int16(POLLIN), revents: 0),
      pollfd(fd: source ?? -1, events: Int16(POLLIN), revents: 0),
      pollfd(fd: hangup ?? -1, events: Int16(POLLIN), revents: 0),
    ]
    var timeout = pollTimeout()
    if fds[0].fd < 0 {
      // Nothing can wake the thread: look at the state again now and then.
      timeout = timeout < 0 ? Self.pauseLimit : min(timeout, Self.pauseLimit)
    }
    state.withLock { $0.sleepsUntilEvent = timeout < 0 }
    // Whether `poll` said which descriptors are ready; if not, each is read without waiting.
    var knowsReady = true
    do {
      _ = try backend.poll(&fds, timeout: timeout)
      state.withLock { $0.pollFailures = 0 }
    } catch let error where error.rawValue == EINTR {
      // A signal: serve what is due, then wait again with a new timeout.
    } catch {
      knowsReady = false
      pollFailed(error, timeout: timeout, source: source)
    }
    let broken = Int16(POLLNVAL | POLLERR | POLLHUP)
    if fds[0].fd >= 0 && (fds[0].revents & broken) != 0 {
      state.withLock { $0.wakeBroken = true }
    } else if fds[0].fd >= 0 && (!knowsReady || fds[0].revents != 0) {
      _ = drain(fds[0].fd)
    }
    let stopped = state.withLock { state in
      state.sleepsUntilEvent = false
      state.wakeUps += 1
      return state.stopped
    }
    if stopped { return false }
    if let source, knowsReady, (fds[1].revents & broken) != 0 {
      let flag =
        (fds[1].revents & Int16(POLLNVAL)) != 0
        ? "POLLNVAL" : (fds[1].revents & Int16(POLLERR)) != 0 ? "POLLERR" : "POLLHUP"
      giveUpEvents(
        source, reason: "poll: the descriptor is not usable (\(flag))", closes: flag != "POLLNVAL")
    }
    if let hangup {
      if knowsReady && (fds[2].revents & broken) != 0 {
        // The signal pipe is gone: stop polling it rather than wake for it forever.
        state.withLock { state in if state.hangup == hangup { state.hangup = nil } }
      } else if knowsReady ? fds[2].revents != 0 : drain(hangup) {
        if knowsReady { _ = drain(hangup) }
        for continuation in state.withLock({ Array($0.hangupContinuations.values) }) { continuation.yield() }
      }
    }
    pump()
    return true
  }

  /// Handles a failed `poll` (other than `EINTR`): gives up the backend's events, or pauses before the next turn.
  private func pollFailed(_ error: Errno, timeout: Int32, source: Int32?) {
    let failures = state.withLock { state in
      state.pollFailures += 1
      return state.pollFailures
    }
    let transient = error.rawValue == ENOMEM || error.rawValue == EAGAIN
    if let source, !transient || failures >= Self.transientFailureLimit {
      let reason = transient ? "poll: \(error) (\(failures) times in a row)" : "poll: \(error)"
      giveUpEvents(source, reason: reason, closes: error.rawValue != EBADF)
      state.withLock { $0.pollFailures = 0 }
      return  // the next turn polls without it
    }
    let pause = transient && source != nil ? Self.firstPause << (failures - 1) : Self.pauseLimit
    backend.sleep(milliseconds: timeout < 0 ? pause : min(timeout, pause))
  }

  /// Reads everything a non-blocking pipe holds. Returns whether there was anything.
  private func drain(_ fd: Int32) -> Bool {
    var drain = [UInt8](repeating: 0, count: 64)
    var any = false
    while read(fd, &drain, drain.count) > 0 { any = true }
    return any
  }
}
