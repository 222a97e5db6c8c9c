import Foundation
import StrataPlatform
import Synchronization

@testable import Strata

/// Starts processes for the tests, the one way every test does: `posix_spawn` with a clean signal mask
/// and default dispositions, so that a child never inherits a blocked `SIGTERM` (or an ignored
/// `SIGPIPE`) from the test runner's thread — a server started that way ignores `terminate()` and
/// outlives the run. Nothing of the test process's environment or descriptors is inherited.
enum Spawn {
  /// What a finished process printed and how it ended.
  struct Result {
    var status: Int32
    var output: String
    var errors: String
  }

  /// Starts `executable`; its stdout and stderr go to the given descriptors (`nil`: /dev/null), stdin
  /// is /dev/null.
  /// - Parameter rawEnvironment: the environment as `NAME=value` byte strings, used instead of
  ///   `environment` when given (for values that are not UTF-8).
  /// - Returns: the child's pid.
  static func start(
    _ executable: String, _ arguments: [String], environment: [String: String] = defaultEnvironment,
    rawEnvironment: [[UInt8]]? = nil, directory: String? = nil, output: Int32?, errors: Int32?
  ) throws -> pid_t {
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0)
    for (source, target) in [(output, STDOUT_FILENO), (errors, STDERR_FILENO)] {
      if let source {
        posix_spawn_file_actions_adddup2(&actions, source, target)
      } else {
        posix_spawn_file_actions_addopen(&actions, target, "/dev/null", O_WRONLY, 0)
      }
    }
    closeDescriptors(from: 3, in: &actions)  // what other tests opened without close-on-exec
    if let directory { changeDirectory(to: directory, in: &actions) }

    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    var empty = sigset_t()
    sigemptyset(&empty)
    var all = sigset_t()
    sigfillset(&all)
    posix_spawnattr_setsigmask(&attributes, &empty)
    posix_spawnattr_setsigdefault(&attributes, &all)
    posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

    let entries = rawEnvironment ?? environment.map { Array("\($0.key)=\($0.value)".utf8) }
    let argv = ([executable] + arguments).map { strdup($0) } + [nil]
    let envp: [UnsafeMutablePointer<CChar>?] =
      entries.map { bytes in
        let copy = UnsafeMutablePointer<CChar>.allocate(capacity: bytes.count + 1)
        for (index, byte) in bytes.enumerated() { copy[index] = CChar(bitPattern: byte) }
        copy[bytes.count] = 0
        return copy
      } + [nil]
    defer {
      for pointer in argv { free(pointer) }
      for pointer in envp { pointer?.deallocate() }
    }
    var pid: pid_t = 0
    // Not while a test has a file open for writing: the child would hold a copy (``descriptorLock``).
    let result = descriptorLock.withLock { _ in
      posix_spawnp(&pid, executable, &actions, &attributes, argv, envp)
    }
    guard result == 0 else { throw POSIXError(.init(rawValue: result) ?? .EIO) }
    return pid
  }

  /// `PATH` only.
  static let defaultEnvironment = ["PATH": "/usr/bin:/bin"]

  /// Runs a process to its end and returns what it printed on stdout and stderr (read concurrently,
  /// so neither pipe can fill and stall it). A process still running after `seconds` is killed.
  ///
  /// The reading and the waiting happen on threads of their own (see ``OwnThread``): never on one of
  /// the concurrency pool's, which the stores of tests running alongside need.
  static func run(
    _ executable: String, _ arguments: [String], environment: [String: String] = defaultEnvironment,
    rawEnvironment: [[UInt8]]? = nil, directory: String? = nil, within seconds: Double = 300
  ) async throws -> Result {
    var out: [Int32] = [-1, -1]
    var err: [Int32] = [-1, -1]
    guard CloseOnExecPipe.open(&out) == 0 else { throw POSIXError(.EMFILE) }
    guard CloseOnExecPipe.open(&err) == 0 else {
      close(out[0])
      close(out[1])
      throw POSIXError(.EMFILE)
    }
    let pid: pid_t
    do {
      pid = try start(
        executable, arguments, environment: environment, rawEnvironment: rawEnvironment,
        directory: directory, output: out[1], errors: err[1])
    } catch {
      for fd in out + err { close(fd) }
      throw error
    }
    close(out[1])
    close(err[1])
    let exit = ProcessExit(pid)
    let deadline = Date().addingTimeInterval(seconds)
    let (outRead, errRead) = (out[0], err[0])
    let (output, errors) = await onOwnThread { () -> ([UInt8], [UInt8]) in
      defer {
        close(outRead)
        close(errRead)
      }
      return readToEnd(outRead, errRead, until: deadline)
    }
    // Both pipes are closed (or the deadline passed): the process ends now, or is made to.
    let status = await exit.reap(killingAfter: max(0, deadline.timeIntervalSinceNow))
    return Result(
      status: status.shellStatus, output: String(decoding: output, as: UTF8.self),
      errors: String(decoding: errors, as: UTF8.self))
  }

  /// Reads two pipes until both end or the deadline passes.
  private static func readToEnd(_ first: Int32, _ second: Int32, until deadline: Date) -> ([UInt8], [UInt8]) {
    var texts: [[UInt8]] = [[], []]
    var open = [true, true]
    while open.contains(true) {
      var fds = [first, second].enumerated().map { index, fd in
        pollfd(fd: open[index] ? fd : -1, events: Int16(POLLIN), revents: 0)
      }
      let remaining = deadline.timeIntervalSinceNow
      if remaining <= 0 { break }
      let ready = poll(&fds, 2, Int32(min(remaining * 1000, 60_000)) + 1)
      if ready < 0 && errno != EINTR { break }
      for index in 0..<2 where open[index] && fds[index].revents != 0 {
        var chunk = [UInt8](repeating: 0, count: 65536)
        let count = read(fds[index].fd, &chunk, chunk.count)
        if count > 0 {
          texts[index] += chunk[..<count]
        } else if count == 0 || errno != EINTR {
          open[index] = false
        }
      }
    }
    return (texts[0], texts[1])
  }
}

/// How a child ended, as `waitpid` reports it.
struct WaitStatus: Equatable, Sendable {
  let rawValue: Int32

  /// The signal that ended the child, or `nil` if it exited.
  var signal: Int32? { rawValue & 0x7f == 0 ? nil : rawValue & 0x7f }
  /// The exit code, or `nil` if a signal ended the child.
  var exitCode: Int32? { signal == nil ? (rawValue >> 8) & 0xff : nil }
  /// The exit code, or 128 + the signal, as a shell says.
  var shellStatus: Int32 { signal.map { 128 + $0 } ?? (rawValue >> 8) & 0xff }
}

/// The end of a child process, awaited without blocking the concurrency pool.
///
/// A thread of its own waits in `waitid(…, WEXITED | WNOWAIT)`, which returns once the child has ended
/// but leaves it a zombie: a deadline can pass while the child runs, and the child still be killed and
/// reaped afterwards (by `waitpid`, which then returns at once). The pid stays the child's until then,
/// so a `kill` can never reach another process.
final class ProcessExit: Sendable {
  /// The child's pid.
  let pid: pid_t
  private let ended: OwnThread<Void>
  private let status = Locked<WaitStatus?>(nil)

  /// Starts watching child `pid` (a child of this process, not yet reaped).
  init(_ pid: pid_t) {
    self.pid = pid
    ended = OwnThread {
      var info = siginfo_t()
      // Any error but EINTR (ECHILD: reaped meanwhile) ends the wait too.
      while waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT) < 0 && errno == EINTR {}
    }
  }

  /// Whether the child has been reaped.
  var isReaped: Bool { status.withLock { $0 != nil } }

  /// Waits up to `seconds` for the child to end; reaps it and returns how it ended, or `nil` while it
  /// still runs.
  func ending(within seconds: Double) async -> WaitStatus? {
    guard await ended.value(within: seconds) != nil else { return nil }
    return reapEnded()
  }

  /// Waits up to `seconds` for the child to end, kills it (`SIGKILL`) if it has not, and reaps it.
  func reap(killingAfter seconds: Double) async -> WaitStatus {
    if let status = await ending(within: seconds) { return status }
    kill(pid, SIGKILL)
    await ended.value
    return reapEnded()
  }

  /// Kills the child if it has not been reaped, and reaps it on a thread of its own (for a `deinit`,
  /// which cannot wait).
  func killAndReapInBackground() {
    guard !isReaped else { return }
    kill(pid, SIGKILL)
    Thread { [self] in
      var status: Int32 = 0
      while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
      self.status.withLock { $0 = WaitStatus(rawValue: status) }
    }.start()
  }

  /// Reaps the child, which has ended (`waitpid` returns at once).
  private func reapEnded() -> WaitStatus {
    status.withLock { status in
      if let status { return status }
      var raw: Int32 = 0
      while waitpid(pid, &raw, 0) < 0 && errno == EINTR {}
      status = WaitStatus(rawValue: raw)
      return status!
    }
  }
}

/// `posix_spawn_file_actions_addclosefrom_np(actions, first)` (glibc 2.34), looked up at run time (the
/// Glibc module leaves GNU extensions out; Darwin and musl have none); without it the child inherits
/// what the test process left open.
private func closeDescriptors(from first: Int32, in actions: inout posix_spawn_file_actions_t) {
  typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
  guard let symbol = DynamicSymbol.address(of: "posix_spawn_file_actions_addclosefrom_np") else { return }
  _ = unsafeBitCast(symbol, to: CloseFrom.self)(&actions, first)
}

/// `posix_spawn_file_actions_addchdir_np(actions, path)` (glibc 2.29), looked up the same way.
private func changeDirectory(to path: String, in actions: inout posix_spawn_file_actions_t) {
  typealias AddChdir =
    @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, UnsafePointer<CChar>) -> Int32
  guard let symbol = DynamicSymbol.address(of: "posix_spawn_file_actions_addchdir_np") else { return }
  _ = path.withCString { unsafeBitCast(symbol, to: AddChdir.self)(&actions, $0) }
}
