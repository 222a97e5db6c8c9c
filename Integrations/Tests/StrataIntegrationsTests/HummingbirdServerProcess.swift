import Foundation
import Synchronization

/// The sample server run as a real process, its output collected; killed and reaped when released.
final class HummingbirdServerProcess: Sendable {
  private let process: Process
  private let output = Output()
  private let exit = ProcessExit()

  /// What the process printed, appended from the pipe's reader.
  private final class Output: Sendable {
    let text = Mutex("")
  }

  /// Starts the built `hummingbird-server` with `arguments` and a clean environment plus `environment`.
  /// Its control socket goes in the `--root` directory (`RUNTIME_DIRECTORY`), never the machine's
  /// `/run/hbserver`.
  init(arguments: [String], environment: [String: String] = [:]) throws {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: Self.binaryPath)
    process.arguments = arguments
    var base = ["PATH": "/usr/bin:/bin", "HOME": "/home/user"]
    if let index = arguments.firstIndex(of: "--root"), arguments.indices.contains(index + 1) {
      base["RUNTIME_DIRECTORY"] = arguments[index + 1]
    }
    process.environment = base.merging(environment) { $1 }
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = pipe
    process.standardInput = FileHandle.nullDevice
    pipe.fileHandleForReading.readabilityHandler = { [output] handle in
      let data = handle.availableData
      output.text.withLock { $0 += String(decoding: data, as: UTF8.self) }
    }
    process.terminationHandler = { [exit] _ in exit.finish() }
    try process.run()
    self.process = process
  }

  deinit {
    killNow()
  }

  /// The built binary, next to the test bundle.
  static var binaryPath: String {
    let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
    return executable.deletingLastPathComponent().appendingPathComponent("hummingbird-server").path
  }

  /// What it printed so far (stdout and stderr).
  var transcript: String { output.text.withLock { $0 } }

  /// The process id.
  var pid: Int32 { process.processIdentifier }

  /// Whether it still runs.
  var isRunning: Bool { process.isRunning }

  /// Sends a signal.
  func send(_ signal: Int32) {
    if process.isRunning { kill(process.processIdentifier, signal) }
  }

  /// Waits up to `seconds` for it to exit; its status, or `nil` (then it is killed and reaped).
  func finish(within seconds: Double) async -> Int32? {
    guard await exit.wait(timeout: .milliseconds(Int(seconds * 1000))) else {
      await stop()
      return nil
    }
    return process.terminationStatus
  }

  /// Kills it and waits until it is reaped.
  func stop() async {
    killNow()
    await exit.wait()
  }

  /// Kills it (Foundation reaps it; nothing waits here, so `defer` and `deinit` can call it).
  func killNow() {
    if process.isRunning { kill(process.processIdentifier, SIGKILL) }
  }
}
