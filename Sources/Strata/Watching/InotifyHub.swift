import Glibc

/// The process's one inotify instance and the one thread that waits on it.
///
/// Every ``FileWatcher`` of the process registers here. The hub owns the inotify descriptor, a wake
/// pipe, and the thread blocked in `poll()` on them (with the nearest timer of any watcher as the
/// timeout, so nothing wakes while nothing changes). Watches are reference-counted per watcher, since a
/// second `inotify_add_watch` on the same directory returns the same descriptor; events are handed to
/// the watchers that own their watch descriptor, and a queue overflow to all of them.
final class InotifyHub: @unchecked Sendable {
  // @unchecked: the descriptors are set once in init; everything mutable is in `state` (a `Locked`).
  struct State {
    var cores: [ObjectIdentifier: WeakCore] = [:]
    /// For each watch descriptor, how many of each watcher's directories use it.
    var users: [Int32: [ObjectIdentifier: Int]] = [:]
    var hangup: Int32?
    /// Subscribers to `SIGHUP` (``hangups()``).
    var hangupContinuations: [Int: AsyncStream<Void>.Continuation] = [:]
    var nextHangupContinuation = 0
    var thread: pthread_t?
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
  static let shared = InotifyHub(system: LiveInotify(), clock: monotonicNanoseconds, startsThread: true)

  let state = Locked(State())
  let system: any InotifySystem
  let clock: @Sendable () -> UInt64
  /// The inotify descriptor, or `nil` when inotify could not be initialized (then everything is polled).
  let inotify: Int32?
  let initializationError: Errno?
  let wakeRead: Int32
  let wakeWrite: Int32

  init(system: any InotifySystem, clock: @escaping @Sendable () -> UInt64, startsThread: Bool) {
    self.system = system
    self.clock = clock
    var fds: [Int32] = [-1, -1]
    _ = pipe(&fds)
    for fd in fds where fd >= 0 {
      _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
      _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
    }
    wakeRead = fds[0]
    wakeWrite = fds[1]
    do {
      inotify = try system.initialize()
      initializationError = nil
    } catch {
      inotify = nil
      initializationError = error
    }
    if startsThread { startThread() }
  }

  deinit {
    if let inotify { close(inotify) }
    close(wakeRead)
    close(wakeWrite)
  }

  func register(_ core: WatcherCore) {
    state.withLock { $0.cores[ObjectIdentifier(core)] = WeakCore(core: core) }
  }

  /// Forgets a watcher and removes the watches only it used.
  func unregister(_ core: WatcherCore) {
    let id = ObjectIdentifier(core)
    let unused = state.withLock { state -> [Int32] in
      state.cores[id] = nil
      var unused: [Int32] = []
      for (watch, users) in state.users where users[id] != nil {
        state.users[watch]?[id] = nil
        if state.users[watch]?.isEmpty == true {
          state.users[watch] = nil
          unused.append(watch)
        }
      }
      return unused
    }
    if let inotify { for watch in unused { system.removeWatch(inotify, watch: watch) } }
  }

  /// Watches a directory for a watcher. The corresponding C function is `inotify_add_watch`.
  func addWatch(_ path: String, for core: WatcherCore) throws(Errno) -> Int32 {
    guard let inotify else { throw initializationError ?? Errno(ENOSYS) }
    let watch = try system.addWatch(inotify, path: path, mask: .directoryWatch)
    state.withLock { $0.users[watch, default: [:]][ObjectIdentifier(core), default: 0] += 1 }
    return watch
  }

  /// Releases one use of a watch; the watch is removed when no watcher uses it.
  func removeWatch(_ watch: Int32, for core: WatcherCore) {
    let id = ObjectIdentifier(core)
    let unused = state.withLock { state -> Bool in
      guard let count = state.users[watch]?[id] else { return false }
      state.users[watch]?[id] = count > 1 ? count - 1 : nil
      if state.users[watch]?.isEmpty == true {
        state.users[watch] = nil
        return true
      }
      return false
    }
    if unused, let inotify { system.removeWatch(inotify, watch: watch) }
  }

  /// A watch the kernel dropped (`IN_IGNORED`): forget it for everyone.
  func forget(_ watch: Int32) {
    _ = state.withLock { $0.users.removeValue(forKey: watch) }
  }

  /// Reads pending events, hands each watcher its own (all of them an overflow), and fires timers.
  func pump() {
    let events = inotify.map(readInotifyEvents) ?? []
    let (cores, users) = state.withLock { state in (state.cores.values.compactMap(\.core), state.users) }
    for core in cores {
      let id = ObjectIdentifier(core)
      let mine = events.filter { event in
        event.mask.contains(.queueOverflow) || users[event.watch]?[id] != nil || core.owns(event.watch)
      }
      core.process(mine)
    }
  }

  func wake() {
    var byte: UInt8 = 1
    _ = write(wakeWrite, &byte, 1)
  }

  /// Polls `SIGHUP` too, for watchers that asked to rescan on it.
  func watchHangup(_ fd: Int32) {
    state.withLock { $0.hangup = fd }
    wake()
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
    let thread = state.withLock { state -> pthread_t? in
      state.stopped = true
      defer { state.thread = nil }
      return state.thread
    }
    wake()
    if let thread, pthread_equal(thread, pthread_self()) == 0 { pthread_join(thread, nil) }
  }

  private func startThread() {
    var thread = pthread_t()
    let context = Unmanaged.passRetained(self).toOpaque()
    let result = pthread_create(
      &thread, nil,
      { context in
        Unmanaged<InotifyHub>.fromOpaque(context!).takeRetainedValue().run()
        return nil
      }, context)
    if result == 0 {
      state.withLock { $0.thread = thread }
    } else {
      Unmanaged<InotifyHub>.fromOpaque(context).release()
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
    while true {
      var fds = [pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0)]
      if let inotify { fds.append(pollfd(fd: inotify, events: Int16(POLLIN), revents: 0)) }
      let hangup = state.withLock { $0.hangup }
      if let hangup { fds.append(pollfd(fd: hangup, events: Int16(POLLIN), revents: 0)) }
      let timeout = pollTimeout()
      state.withLock { $0.sleepsUntilEvent = timeout < 0 }
      let result = poll(&fds, nfds_t(fds.count), timeout)
      if result < 0 && errno != EINTR { return }
      if fds[0].revents != 0 {
        var drain = [UInt8](repeating: 0, count: 64)
        while read(wakeRead, &drain, drain.count) > 0 {}
      }
      let stopped = state.withLock { state in
        state.sleepsUntilEvent = false
        state.wakeUps += 1
        return state.stopped
      }
      if stopped { return }
      if let hangup, fds.last!.fd == hangup, fds.last!.revents != 0 {
        var drain = [UInt8](repeating: 0, count: 64)
        while read(hangup, &drain, drain.count) > 0 {}
        for core in state.withLock({ $0.cores.values.compactMap(\.core) }) where core.rescansOnHangup {
          core.rescan()
        }
        for continuation in state.withLock({ Array($0.hangupContinuations.values) }) { continuation.yield() }
      }
      pump()
    }
  }
}
