import StrataPlatform

/// A path the watcher could not watch with its event backend (inotify) and polls instead, with what to
/// do about it; the path `*` when every path is polled (no event backend in the build, or it failed).
/// The store reports each as a ``StoreEvent/watcherFallback(path:message:)`` event.
struct WatcherFallback: Sendable, Hashable, CustomStringConvertible {
  /// The directory or file being polled.
  var path: String
  /// Why, and how to fix it (which sysctl to raise).
  var message: String
  /// `path: message`.
  var description: String { "\(path): \(message)" }
}

/// What the watcher reports: targets that may have changed, and new fallbacks.
struct WatchBatch: Sendable {
  /// The targets (as given to ``FileWatcher/setTargets(_:)``) that may have changed. Read them again and
  /// compare: an event is a hint, not a verdict.
  var paths: Set<String>
  /// Paths that are now polled, and why.
  var fallbacks: [WatcherFallback]
}

/// Watches configuration paths through the process's ``FileEventBackend`` (inotify on Linux, else
/// stat polling) and reports which may have changed. The store's machinery: a running store has one
/// (``FileSignals``).
///
/// It watches directories, never files (an atomic save replaces the file's inode): the directory of each
/// target, the directory of every symlink hop on the way (a Kubernetes `..data` swap names no file),
/// and, for a path whose directories do not exist yet, the nearest existing ancestor, re-armed as they
/// appear. A target is reported once it is complete (inotify: `IN_CLOSE_WRITE` or `IN_MOVED_TO`, never
/// `IN_MODIFY` alone, which would catch half-written files); one that disappears is reported only if it
/// is still missing after the grace period (vim's save has a moment with no file), and not at all when
/// a new regular file already stands in its place (its own close or rename reports it). Files created or
/// written and not yet closed are recorded in ``WritesInProgress``. A queue overflow
/// re-arms everything and reports every target. When a watch cannot be set (inotify: `ENOSPC`,
/// `EMFILE`), the path is polled by a stat signature, and a ``WatcherFallback`` says which sysctl to
/// raise; the watcher never fails. A polled change is reported once a second check (up to 100 ms later)
/// finds the same signature, so that a file caught between a writer's truncation and its write is not
/// read half-written (``StatPoller``).
///
/// With no event backend in the build (``PollingBackend``: inotify compiled out, or a platform without
/// one), every target is polled, and the first batch carries a ``WatcherFallback`` for the path `*`
/// that says so, once.
///
/// All watchers of a process share one backend instance and one dedicated thread (the ``WatcherHub``),
/// which sleeps in `poll()` on the event descriptor and a wake pipe with the nearest deadline (grace
/// period, polling) as its timeout: no wake-ups while nothing changes. Tests create it
/// with `startsThread: false` and drive it with `pump()` and a manual clock.
///
/// The thread survives every error. `EINTR` is retried at once; a transient `poll` failure (`ENOMEM`,
/// `EAGAIN`) is retried after a pause of 10 ms that doubles at each failure in a row. The fifth in a
/// row, any other `poll` error, a read of the event descriptor that fails (other than `EAGAIN`), or a
/// descriptor `poll` reports unusable (`POLLNVAL`) makes the process give the backend's events up: every
/// watcher then polls every target, reports a ``WatcherFallback`` for the path `*` whose message says
/// why (`inotify failed: poll: Bad file descriptor; polling every 1 s`), and reports every target once,
/// so that an edit made while the backend was failing is read. If `poll` still fails, the thread pauses
/// until its next timer (at most 100 ms) instead of waiting, and keeps serving wake-ups, `SIGHUP` and
/// timers.
final class FileWatcher: Sendable {
  let core: WatcherCore
  /// The batches of possibly changed targets. Ends when the watcher stops.
  let changes: AsyncStream<WatchBatch>

  /// Creates a watcher on the process's shared backend and thread.
  /// - Parameters:
  ///   - missingGracePeriod: how long a vanished target may stay missing before it is reported.
  ///   - pollInterval: how often polled paths are checked.
  ///   - pollsOnly: poll every target (for file systems without inotify events: NFS, CIFS, FUSE).
  convenience init(
    missingGracePeriod: Duration = .milliseconds(300), pollInterval: Duration = .seconds(1),
    pollsOnly: Bool = false
  ) {
    self.init(
      hub: .shared, ownsHub: false, missingGracePeriod: missingGracePeriod, pollInterval: pollInterval,
      pollsOnly: pollsOnly)
  }

  /// A watcher with a hub of its own (tests: a backend with injected system calls, a clock, and
  /// `startsThread: false` to drive it with ``pump()``).
  convenience init(
    backend: any FileEventBackend, clock: @escaping @Sendable () -> UInt64, missingGracePeriod: Duration,
    pollInterval: Duration, pollsOnly: Bool = false, startsThread: Bool
  ) {
    let hub = WatcherHub(backend: backend, clock: clock, startsThread: startsThread)
    self.init(
      hub: hub, ownsHub: true, missingGracePeriod: missingGracePeriod, pollInterval: pollInterval,
      pollsOnly: pollsOnly)
  }

  init(hub: WatcherHub, ownsHub: Bool, missingGracePeriod: Duration, pollInterval: Duration, pollsOnly: Bool)
  {
    let (stream, continuation) = AsyncStream<WatchBatch>.makeStream(bufferingPolicy: .unbounded)
    changes = stream
    core = WatcherCore(
      hub: hub, ownsHub: ownsHub, grace: missingGracePeriod.nanoseconds,
      pollInterval: pollInterval.nanoseconds,
      pollsOnly: pollsOnly, continuation: continuation)
  }

  deinit { core.stop() }

  /// Sets the paths to watch: configuration files, or directories whose entries matter (drop-ins).
  func setTargets(_ targets: [String]) {
    core.setTargets(targets)
  }

  /// Processes pending events and due timers now, on this thread (for tests without the thread).
  func pump() { core.pump() }

  /// The paths polled instead of watched.
  var fallbacks: [WatcherFallback] { core.state.withLock { $0.fallbacks } }

  /// Stops the thread, closes the descriptors and ends ``changes``.
  func stop() { core.stop() }

  /// How many times the thread woke up (for tests: none while nothing changes).
  var wakeUps: Int { core.hub.state.withLock { $0.wakeUps } }
  /// Whether the watcher's thread waits in `poll` with nothing due until an event (for tests).
  var sleepsUntilEvent: Bool { core.hub.state.withLock { $0.sleepsUntilEvent } }
}

extension Duration {
  var nanoseconds: UInt64 {
    let (seconds, attoseconds) = components
    return UInt64(max(0, seconds)) * 1_000_000_000 + UInt64(max(0, attoseconds) / 1_000_000_000)
  }
}

/// A polling interval as a person reads it: `1 s`, `250 ms`.
func describeInterval(_ nanoseconds: UInt64) -> String {
  if nanoseconds >= 1_000_000_000 && nanoseconds % 1_000_000_000 == 0 {
    return "\(nanoseconds / 1_000_000_000) s"
  }
  if nanoseconds % 1_000_000 == 0 { return "\(nanoseconds / 1_000_000) ms" }
  return "\(Double(nanoseconds) / 1_000_000) ms"
}
