import Foundation
import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// `etcdctl watch --prefix` as a child process: a thread reads its output and notes when each value
/// of the followed key was printed (the line after the key's line). Stopped and reaped by ``stop()``.
final class EtcdctlWatch: @unchecked Sendable {
  private let process = Process()
  private let output = Pipe()
  /// When each value was printed, by value.
  private let printed = Mutex<[Int: ContinuousClock.Instant]>([:])

  /// Starts `etcdctl --endpoints=endpoint watch --prefix prefix`, noting the values printed for `key`.
  init(etcdctl: String, endpoint: String, prefix: String, key: String) throws {
    process.executableURL = URL(fileURLWithPath: etcdctl)
    process.arguments = ["--endpoints=\(endpoint)", "watch", "--prefix", prefix]
    process.environment = ["ETCDCTL_API": "3"]
    process.standardOutput = output
    process.standardError = FileHandle.nullDevice
    try process.run()
    let handle = output.fileHandleForReading
    Thread.detachNewThread { [self] in
      var pending: [UInt8] = []
      var previous = ""
      while true {
        let data = handle.availableData
        let at = ContinuousClock.now
        if data.isEmpty { return }  // the process ended
        pending += data
        while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
          let line = String(decoding: pending[..<newline], as: UTF8.self)
          pending.removeSubrange(...newline)
          if previous == key, let value = Int(line) { self.printed.withLock { $0[value] = at } }
          previous = line
        }
      }
    }
  }

  /// When `value` was printed (`nil`: not yet).
  func printedAt(_ value: Int) -> ContinuousClock.Instant? { printed.withLock { $0[value] } }

  /// Stops etcdctl and reaps it.
  func stop() {
    if process.isRunning { kill(process.processIdentifier, SIGTERM) }
    process.waitUntilExit()
  }
}
