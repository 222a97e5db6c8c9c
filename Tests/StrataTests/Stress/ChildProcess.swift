import Foundation
import StrataPlatform
import Testing

/// The `strata-stress-child` binary built beside the test bundle (Tests/StressChild).
let stressChildPath: String = {
  let exe =
    (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
  var dir = (exe as NSString).deletingLastPathComponent
  while !dir.isEmpty && dir != "/" && !FileManager.default.fileExists(atPath: dir + "/strata-stress-child") {
    dir = (dir as NSString).deletingLastPathComponent
  }
  return dir + "/strata-stress-child"
}()

/// A child process started with `posix_spawn`, its standard output and error on one pipe, read line by
/// line with deadlines. A child still running when this is released is killed and reaped.
///
/// The waiting methods are `async` and block a thread of their own, never one of the concurrency
/// pool's (two cores give two: tests blocked in `poll()` there would starve every other test).
final class ChildProcess: @unchecked Sendable {
  // @unchecked: one test drives a child at a time, one call after another (each call hands the object
  // to a thread of its own and awaits it); nothing touches it concurrently.
  let pid: pid_t
  private let exit: ProcessExit
  private var output: Int32
  private var buffer: [UInt8] = []
  private(set) var transcript = ""

  /// Starts `executable` with `arguments` and `environment` (nothing inherited), in `directory`, with a
  /// clean signal mask (see ``Spawn``).
  init(
    _ executable: String, _ arguments: [String], environment: [String: String] = Spawn.defaultEnvironment,
    in directory: String? = nil
  ) throws {
    var fds: [Int32] = [-1, -1]
    guard CloseOnExecPipe.open(&fds) == 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
    defer { close(fds[1]) }
    do {
      pid = try Spawn.start(
        executable, arguments, environment: environment, directory: directory, output: fds[1], errors: fds[1])
    } catch {
      close(fds[0])
      throw error
    }
    exit = ProcessExit(pid)
    self.output = fds[0]
  }

  /// Everything printed so far, read without waiting.
  var outputSoFar: String {
    while fill(timeout: 0) {}
    return transcript
  }

  /// The next line of output, or `nil` at end of output or after `seconds`.
  func readLine(within seconds: Double = 30) async -> String? {
    await onOwnThread { self.blockingReadLine(within: seconds) }
  }

  private func blockingReadLine(within seconds: Double) -> String? {
    let deadline = Date().addingTimeInterval(seconds)
    while true {
      if let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
        let line = String(decoding: buffer[..<newline], as: UTF8.self)
        buffer.removeSubrange(...newline)
        return line
      }
      let remaining = deadline.timeIntervalSinceNow
      guard remaining > 0, fill(timeout: remaining) else { return nil }
    }
  }

  /// Skips lines until one starts with `prefix` and returns it, or `nil` at end of output or after
  /// `seconds`.
  func line(startingWith prefix: String, within seconds: Double = 30) async -> String? {
    await onOwnThread {
      let deadline = Date().addingTimeInterval(seconds)
      while let line = self.blockingReadLine(within: max(0, deadline.timeIntervalSinceNow)) {
        if line.hasPrefix(prefix) { return line }
      }
      return nil
    }
  }

  /// Reads more output; false at end of output, on error, or when nothing came within `timeout` (0:
  /// only what is there already, without waiting at all).
  private func fill(timeout: Double) -> Bool {
    var request = pollfd(fd: output, events: Int16(POLLIN), revents: 0)
    let ready = poll(&request, 1, timeout <= 0 ? 0 : Int32(min(timeout * 1000, 3_600_000)) + 1)
    if ready < 0 { return errno == EINTR }
    guard ready > 0 else { return false }
    var chunk = [UInt8](repeating: 0, count: 4096)
    let count = chunk.withUnsafeMutableBytes { Syscall.read(output, $0.baseAddress, $0.count) }
    if count < 0 { return errno == EINTR }
    guard count > 0 else { return false }
    buffer += chunk[..<count]
    transcript += String(decoding: chunk[..<count], as: UTF8.self)
    return true
  }

  /// Closes the reading end of the child's output, as `head` does once it has its line.
  func closeOutput() {
    if output >= 0 { close(output) }
    output = -1
  }

  /// Waits up to `seconds` for the child to end; `nil` if it is still running then (it is left
  /// running; the deinit kills it).
  func ending(within seconds: Double) async -> Ending? {
    await exit.ending(within: seconds).map(Ending.init)
  }

  /// Sends a signal.
  func send(_ signal: Int32) { Syscall.kill(pid, signal) }

  /// How a child ended.
  enum Ending: Equatable {
    case exited(Int32)
    case signaled(Int32)

    init(_ status: WaitStatus) {
      if let signal = status.signal {
        self = .signaled(signal)
      } else {
        self = .exited(status.exitCode ?? 0)
      }
    }
  }

  /// Waits for the child to end (it must be ending: killed, or done); one still running after
  /// `seconds` fails the test and is killed.
  @discardableResult
  func wait(within seconds: Double = 120) async -> Ending {
    if let ending = await ending(within: seconds) { return ending }
    Issue.record("pid \(pid) still running \(seconds) s after it should have ended: killed")
    return Ending(await exit.reap(killingAfter: 0))
  }

  /// Everything the child printed from now until it ends (or `seconds` pass: then it is killed), then
  /// its ending.
  func finish(within seconds: Double = 60) async -> (output: String, ending: Ending) {
    let start = transcript.count
    let deadline = Date().addingTimeInterval(seconds)
    await onOwnThread {
      while deadline.timeIntervalSinceNow > 0, self.fill(timeout: deadline.timeIntervalSinceNow) {}
    }
    // The output has ended (or the deadline passed): the child ends now, or is made to.
    let ending = Ending(await exit.reap(killingAfter: max(0, deadline.timeIntervalSinceNow)))
    return (String(transcript.dropFirst(start)), ending)
  }

  deinit {
    exit.killAndReapInBackground()
    if output >= 0 { close(output) }
  }
}
