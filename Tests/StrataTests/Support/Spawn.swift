import Foundation
import Glibc

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
  /// - Returns: the child's pid.
  static func start(
    _ executable: String, _ arguments: [String], environment: [String: String] = defaultEnvironment,
    directory: String? = nil, output: Int32?, errors: Int32?
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

    let argv = ([executable] + arguments).map { strdup($0) } + [nil]
    let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
    defer {
      for pointer in argv + envp { free(pointer) }
    }
    var pid: pid_t = 0
    let result = posix_spawnp(&pid, executable, &actions, &attributes, argv, envp)
    guard result == 0 else { throw POSIXError(.init(rawValue: result) ?? .EIO) }
    return pid
  }

  /// `PATH` only.
  static let defaultEnvironment = ["PATH": "/usr/bin:/bin"]

  /// Runs a process to its end and returns what it printed on stdout and stderr (read concurrently,
  /// so neither pipe can fill and stall it). A process still running after `seconds` is killed.
  static func run(
    _ executable: String, _ arguments: [String], environment: [String: String] = defaultEnvironment,
    directory: String? = nil, within seconds: Double = 300
  ) throws -> Result {
    var out: [Int32] = [-1, -1]
    var err: [Int32] = [-1, -1]
    guard closeOnExecPipe(&out) == 0 else { throw POSIXError(.EMFILE) }
    defer { close(out[0]) }
    guard closeOnExecPipe(&err) == 0 else {
      close(out[1])
      throw POSIXError(.EMFILE)
    }
    defer { close(err[0]) }
    let pid: pid_t
    do {
      pid = try start(
        executable, arguments, environment: environment, directory: directory, output: out[1], errors: err[1])
    } catch {
      close(out[1])
      close(err[1])
      throw error
    }
    close(out[1])
    close(err[1])
    var texts: [[UInt8]] = [[], []]
    var open = [true, true]
    let deadline = Date().addingTimeInterval(seconds)
    while open.contains(true) {
      var fds = [out[0], err[0]].enumerated().map { index, fd in
        pollfd(fd: open[index] ? fd : -1, events: Int16(POLLIN), revents: 0)
      }
      let remaining = deadline.timeIntervalSinceNow
      if remaining <= 0 {
        kill(pid, SIGKILL)
        break
      }
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
    return Result(
      status: reap(pid), output: String(decoding: texts[0], as: UTF8.self),
      errors: String(decoding: texts[1], as: UTF8.self))
  }

  /// Waits for a child and returns its exit status (128 + the signal, as a shell says, if a signal
  /// ended it).
  @discardableResult
  static func reap(_ pid: pid_t) -> Int32 {
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    let signal = status & 0x7f
    return signal == 0 ? (status >> 8) & 0xff : 128 + signal
  }
}

/// `pipe2(fds, O_CLOEXEC)`, which Glibc's module map leaves out (it is a GNU extension): a pipe that no
/// other child spawned meanwhile by another test can inherit.
func closeOnExecPipe(_ fds: UnsafeMutablePointer<Int32>) -> Int32 {
  typealias Pipe2 = @convention(c) (UnsafeMutablePointer<Int32>, Int32) -> Int32
  guard let symbol = dlsym(nil, "pipe2") else { return -1 }
  return unsafeBitCast(symbol, to: Pipe2.self)(fds, O_CLOEXEC)
}

/// `posix_spawn_file_actions_addclosefrom_np(actions, first)` (glibc 2.34), looked up at run time for
/// the same reason; without it the child inherits what the test process left open.
private func closeDescriptors(from first: Int32, in actions: inout posix_spawn_file_actions_t) {
  typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
  guard let symbol = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np") else { return }
  _ = unsafeBitCast(symbol, to: CloseFrom.self)(&actions, first)
}

/// `posix_spawn_file_actions_addchdir_np(actions, path)` (glibc 2.29), looked up the same way.
private func changeDirectory(to path: String, in actions: inout posix_spawn_file_actions_t) {
  typealias AddChdir =
    @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, UnsafePointer<CChar>) -> Int32
  guard let symbol = dlsym(nil, "posix_spawn_file_actions_addchdir_np") else { return }
  _ = path.withCString { unsafeBitCast(symbol, to: AddChdir.self)(&actions, $0) }
}
