import Foundation
import StrataPlatform

/// A fake systemd: a datagram socket bound where `NOTIFY_SOCKET` would point, read with a deadline.
final class NotifySocket {
  let fd: Int32
  /// The value for `NOTIFY_SOCKET`: a path, or `@name` for an abstract socket.
  let address: String
  private let path: String?

  /// Binds a socket at `path`, or at a fresh abstract name when `path` is nil (on Linux; elsewhere,
  /// where there are no abstract names, at a fresh path in /tmp, short enough for `sun_path`).
  init(path: String?) throws {
    let path = path ?? (isLinux ? nil : "/tmp/strata-notify-\(UUID().uuidString.prefix(8))")
    fd = LocalDatagramSocket.open()
    guard fd >= 0 else { throw POSIXError(.EIO) }
    self.path = path
    address = path ?? "@strata-notify-test-\(UUID().uuidString)"
    var socketAddress = sockaddr_un()
    socketAddress.sun_family = sa_family_t(AF_UNIX)
    var bytes = Array(address.utf8)
    if path == nil { bytes[0] = 0 }
    withUnsafeMutableBytes(of: &socketAddress.sun_path) { $0.copyBytes(from: bytes) }
    let length = MemoryLayout<sa_family_t>.size + bytes.count + (path == nil ? 0 : 1)
    let bound = withUnsafePointer(to: &socketAddress) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(length)) }
    }
    guard bound == 0 else {
      close(fd)
      throw POSIXError(.init(rawValue: errno) ?? .EIO)
    }
  }

  deinit {
    close(fd)
    if let path { unlink(path) }
  }

  /// The next datagram's fields, or `nil` when none came within `seconds` (by default the suite's
  /// deadline floor: a store starting on a machine busy with other builds took over 60 s once), polled
  /// without blocking a thread of the cooperative pool, which the store under test needs.
  func next(within seconds: Double = shortestWaitDeadline) async -> [String]? {
    let deadline = Date().addingTimeInterval(seconds)
    var buffer = [UInt8](repeating: 0, count: 4096)
    while true {
      let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
      if count > 0 { return Self.fields(of: buffer[..<count]) }
      // Looked once more after the deadline passed: a loaded machine may have slept past it.
      if Date() >= deadline { return nil }
      try? await Task.sleep(for: .milliseconds(5))
    }
  }

  /// A datagram's fields, split at its newline bytes as systemd splits them (not at Characters, where
  /// "\r\n" is one and would hide a field a value started).
  static func fields(of datagram: ArraySlice<UInt8>) -> [String] {
    datagram.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: true).map {
      String(decoding: $0, as: UTF8.self)
    }
  }

  /// Fills the socket's queue as a busy or stuck systemd leaves it: sends `X-FILLER=1` datagrams, each
  /// from a fresh socket (the limit is the receiver's queue length, not a sender's buffer), until one
  /// would block. Returns how many were sent.
  func fill() -> Int {
    var socketAddress = sockaddr_un()
    socketAddress.sun_family = sa_family_t(AF_UNIX)
    var bytes = Array(address.utf8)
    if path == nil { bytes[0] = 0 }
    withUnsafeMutableBytes(of: &socketAddress.sun_path) { $0.copyBytes(from: bytes) }
    let length = socklen_t(MemoryLayout<sa_family_t>.size + bytes.count + (path == nil ? 0 : 1))
    let filler = Array("X-FILLER=1".utf8)
    for sent in 0..<100_000 {
      let sender = LocalDatagramSocket.open()
      guard sender >= 0 else { return sent }
      defer { close(sender) }
      let result = withUnsafePointer(to: &socketAddress) { pointer in
        pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { target in
          filler.withUnsafeBytes {
            sendto(sender, $0.baseAddress, $0.count, LocalDatagramSocket.nonBlockingSendFlags, target, length)
          }
        }
      }
      if result < 0 { return sent }
    }
    return 100_000
  }

  /// The datagrams until one that contains `field` (that one included), or `nil` after a deadline.
  func until(_ field: String) async -> [[String]]? {
    var seen: [[String]] = []
    while let fields = await next() {
      seen.append(fields)
      if fields.contains(field) { return seen }
    }
    return nil
  }
}
