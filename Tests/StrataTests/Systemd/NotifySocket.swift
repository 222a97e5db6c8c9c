import Foundation
import Glibc

/// A fake systemd: a datagram socket bound where `NOTIFY_SOCKET` would point, read with a deadline.
final class NotifySocket {
  let fd: Int32
  /// The value for `NOTIFY_SOCKET`: a path, or `@name` for an abstract socket.
  let address: String
  private let path: String?

  /// Binds a socket at `path`, or at a fresh abstract name when `path` is nil.
  init(path: String?) throws {
    fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
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

  /// The next datagram's fields, or `nil` when none came within `seconds` (polled without blocking a
  /// thread of the cooperative pool, which the store under test needs).
  func next(within seconds: Double = 60) async -> [String]? {
    let deadline = Date().addingTimeInterval(seconds)
    var buffer = [UInt8](repeating: 0, count: 4096)
    while Date() < deadline {
      let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
      if count > 0 {
        return String(decoding: buffer[..<count], as: UTF8.self).split(separator: "\n").map(String.init)
      }
      try? await Task.sleep(for: .milliseconds(5))
    }
    return nil
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
