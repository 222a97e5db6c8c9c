import Foundation
import Glibc
import Testing

/// `config-dump --watch` as a long-running process: a hang-up while it starts is a reload request, and
/// it ends when its reader goes away.
@Suite struct ConfigDumpSignalTests {
  /// Starts `config-dump` with stdout on a pipe; `body` gets the process and the pipe's read end. The
  /// process is killed and reaped on every path.
  func withWatch(_ arguments: [String], _ body: (Process, FileHandle) throws -> Void) throws {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: configDumpPath)
    process.arguments = arguments
    process.environment = ["PATH": "/usr/bin:/bin"]
    let out = Pipe()
    process.standardOutput = out
    process.standardError = FileHandle.nullDevice
    try process.run()
    defer {
      if process.isRunning {
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
      }
    }
    try body(process, out.fileHandleForReading)
  }

  /// Waits until `condition` holds, up to a generous deadline for a busy machine.
  func wait(seconds: Double = 60, for condition: () -> Bool) -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while !condition() {
      if Date() > deadline { return false }
      usleep(2_000)
    }
    return true
  }

  /// Whether the process has a handler for `signal` (`SigCgt` in /proc/PID/status).
  func catches(_ signal: Int32, pid: Int32) -> Bool {
    guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
      let line = status.split(separator: "\n").first(where: { $0.hasPrefix("SigCgt:") }),
      let mask = UInt64(line.dropFirst("SigCgt:".count).trimmingCharacters(in: .whitespaces), radix: 16)
    else { return false }
    return mask & (1 << UInt64(signal - 1)) != 0
  }

  /// What the pipe holds now, without waiting.
  func readAvailable(_ output: FileHandle) -> String {
    let fd = output.fileDescriptor
    _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
    var text = [UInt8]()
    var buffer = [UInt8](repeating: 0, count: 65536)
    while true {
      let count = read(fd, &buffer, buffer.count)
      if count <= 0 { break }
      text += buffer[0..<count]
    }
    return String(decoding: text, as: UTF8.self)
  }

  @Test func aHangupWhileStartingIsQueuedNotFatal() throws {
    try withTemporaryDirectory { dir in
      // A dump larger than a pipe's buffer: unread, it holds the process in its start-up, before the
      // watch begins, for as long as the test wants.
      var text = ""
      for section in 0..<400 {
        text += "[s\(section)]\n"
        for key in 0..<50 { text += "k\(key) = value \(section) \(key)\n" }
      }
      try write(text, to: dir + "/app.ini")
      try withWatch(["--watch", dir + "/app.ini"]) { process, output in
        let pid = process.processIdentifier
        #expect(wait { catches(SIGHUP, pid: pid) || !process.isRunning }, "no handler before the watch began")
        kill(pid, SIGHUP)
        var seen = ""
        #expect(
          wait {
            seen += readAvailable(output); return seen.contains("s399.k49") || !process.isRunning
          })
        #expect(process.isRunning, "the hang-up ended the process (status \(process.terminationStatus))")
        kill(pid, SIGHUP)  // once watching, a hang-up reloads and the watch goes on
        try write(text + "[late]\nk = 1\n", to: dir + "/app.ini")
        #expect(
          wait {
            seen += readAvailable(output); return seen.contains(#""key": "late.k""#)
          })
        #expect(process.isRunning)
      }
    }
  }

  @Test func theWatchEndsWhenItsReaderGoesAway() throws {
    try withTemporaryDirectory { dir in
      try write("[a]\nb = 1\n", to: dir + "/app.ini")
      try withWatch(["--watch", dir + "/app.ini"]) { process, output in
        var seen = ""
        #expect(
          wait {
            seen += readAvailable(output); return seen.contains("a.b")
          })
        try output.close()  // as `head -1` does after its line
        // Nothing changes, so nothing is written: the process must notice the closed pipe by itself.
        #expect(wait { !process.isRunning }, "config-dump --watch kept running with no reader")
        if !process.isRunning {
          #expect(process.terminationReason == .exit && process.terminationStatus == 0)
        }
      }
    }
  }
}
