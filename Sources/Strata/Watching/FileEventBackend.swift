import StrataPlatform

/// An `errno` value from a failed system call.
package struct Errno: Error, Sendable, Hashable, CustomStringConvertible {
  /// The raw value.
  package var rawValue: Int32
  /// Wraps a raw value.
  package init(_ rawValue: Int32) { self.rawValue = rawValue }
  /// `strerror` text.
  package var description: String { String(cString: strerror(rawValue)) }
}

/// A kernel's source of file-system events, as the ``WatcherHub`` uses it: a descriptor its thread
/// waits on, watches on directories, and the events read from it, in the kernel's own terms turned into
/// ``FileEvent``s. One backend serves the whole process.
///
/// The backends: ``InotifyBackend`` (Linux, when the `Inotify` package trait is on, as it is by default)
/// and ``PollingBackend`` (everywhere else, and when inotify is compiled out: no events, every target is
/// polled by its stat signature). ``preferredFileEventBackend()`` picks one. Whatever the backend, a
/// watcher falls back to polling for a directory it cannot watch, and for every path when the backend
/// cannot open or fails while in use (``WatcherFallback`` says why).
///
/// Adding a backend (kqueue on Darwin and the BSDs, say) is one file, under its `#if`
/// (`#if canImport(Darwin)`), holding a type that conforms to this protocol, and its line in
/// ``preferredFileEventBackend()``. The type implements:
/// - ``open()``: the event descriptor, which `poll()` reports readable while events are pending (a
///   kqueue descriptor is: `kqueue`, `<sys/event.h>`), non-blocking and close-on-exec; or it throws
///   the `errno`, and every path is polled.
/// - ``addWatch(_:directory:)`` / ``removeWatch(_:watch:)``: watch one directory's entries (kqueue:
///   `open(directory, O_EVTONLY)` and an `EVFILT_VNODE` filter for `NOTE_WRITE | NOTE_DELETE |
///   NOTE_RENAME | NOTE_REVOKE`, the directory's descriptor as the watch number; remove closes it). A
///   throw makes the watcher poll that directory; ``watchFailureAdvice(_:)`` says what to do.
/// - ``readEvents(_:)``: every pending event without blocking (kqueue: `kevent` with a zero timeout).
///   An event that names no entry (``FileEvent/name`` empty) makes every target under the directory a
///   candidate, which is read and compared; that is all a kqueue directory filter can say. A change
///   inside a file that leaves its directory alone (an in-place `echo > f`) reaches no directory filter:
///   such a backend also opens the directory's entries (`O_EVTONLY`, `NOTE_WRITE | NOTE_EXTEND`) and
///   reports a write to one as ``FileEvent/Kind/completed`` under the entry's name.
/// - ``name``, ``unavailableAdvice(_:)``: the words of the fallback messages.
///
/// `poll` and `sleep` are the hub thread's own calls, with the live calls as defaults: only tests
/// replace them (to inject failures and pauses that do not sleep).
protocol FileEventBackend: Sendable {
  /// The backend's name in messages (`inotify`).
  var name: String { get }
  /// Opens the process's event source: a non-blocking, close-on-exec descriptor that `poll()` reports
  /// readable while events are pending, or `nil` when the backend has no events (polling).
  func open() throws(Errno) -> Int32?
  /// Watches the entries of a directory; returns the watch's number (the same number for a second
  /// watch on the same directory).
  func addWatch(_ fd: Int32, directory: String) throws(Errno) -> Int32
  /// Stops a watch.
  func removeWatch(_ fd: Int32, watch: Int32)
  /// Reads every pending event without blocking.
  /// - Throws: the error of a read that failed otherwise than with "nothing pending": the descriptor is
  ///   unusable, and every path is polled from then on.
  func readEvents(_ fd: Int32) throws(Errno) -> [FileEvent]
  /// Why ``open()`` failed, and what to do about it (which limit to raise).
  func unavailableAdvice(_ error: Errno) -> String
  /// Why ``addWatch(_:directory:)`` failed, and what to do about it (which limit to raise).
  func watchFailureAdvice(_ error: Errno) -> String
  /// Waits until one of `fds` is ready or `timeout` milliseconds pass (-1: no limit), and returns how
  /// many are ready. `EINTR` is thrown, not retried: the caller computes its timeout again. The
  /// corresponding C function is `poll` (`<poll.h>`).
  func poll(_ fds: inout [pollfd], timeout: Int32) throws(Errno) -> Int
  /// Sleeps, after a failed `poll` (there is nothing to wait on). The corresponding C function is
  /// `nanosleep` (`<time.h>`).
  func sleep(milliseconds: Int32)
}

extension FileEventBackend {
  func poll(_ fds: inout [pollfd], timeout: Int32) throws(Errno) -> Int {
    try livePoll(&fds, timeout: timeout)
  }

  func sleep(milliseconds: Int32) { liveSleep(milliseconds: milliseconds) }

  func unavailableAdvice(_ error: Errno) -> String { "\(name) is unavailable (\(error))" }

  func watchFailureAdvice(_ error: Errno) -> String { "cannot watch it (\(error))" }
}

/// `poll` as it is: `EINTR` thrown, not retried (the caller computes its timeout again).
func livePoll(_ fds: inout [pollfd], timeout: Int32) throws(Errno) -> Int {
  let count = poll(&fds, nfds_t(fds.count), timeout)
  if count < 0 { throw Errno(errno) }
  return Int(count)
}

/// `nanosleep` for the whole time, resumed after a signal.
func liveSleep(milliseconds: Int32) {
  guard milliseconds > 0 else { return }
  var request = timespec(tv_sec: Int(milliseconds / 1000), tv_nsec: Int(milliseconds % 1000) * 1_000_000)
  var remaining = timespec()
  while nanosleep(&request, &remaining) != 0 && errno == EINTR { request = remaining }
}

/// One event of a watched directory, in the watcher's terms.
struct FileEvent: Sendable, Equatable {
  /// What happened.
  struct Kind: OptionSet, Sendable {
    let rawValue: UInt16
    /// An entry appeared (a new file is not complete until it is closed).
    static let created = Kind(rawValue: 1 << 0)
    /// An entry is complete: written and closed, or renamed into place.
    static let completed = Kind(rawValue: 1 << 1)
    /// An entry went away: removed, or renamed elsewhere.
    static let vanished = Kind(rawValue: 1 << 2)
    /// An entry changed otherwise (written, not yet closed; attributes).
    static let touched = Kind(rawValue: 1 << 3)
    /// The watched directory itself was removed or moved.
    static let directoryGone = Kind(rawValue: 1 << 4)
    /// An entry's content was written, and it is not closed yet (`IN_MODIFY`).
    static let written = Kind(rawValue: 1 << 7)
    /// The kernel dropped the watch (the directory is gone, or its file system unmounted).
    static let watchEnded = Kind(rawValue: 1 << 5)
    /// Events were lost (the kernel's queue overflowed): every target must be read again.
    static let overflow = Kind(rawValue: 1 << 6)
  }

  /// The watch (as returned by ``FileEventBackend/addWatch(_:directory:)``); ignored for an overflow.
  var watch: Int32
  var kind: Kind
  /// The entry's name in the directory, or empty for the directory itself.
  var name: String
}

/// The backend of this build: inotify on Linux when the `Inotify` trait is on, else polling.
func preferredFileEventBackend() -> any FileEventBackend {
  #if os(Linux) && Inotify
    InotifyBackend()
  #else
    PollingBackend()
  #endif
}
