import Foundation
import StrataPlatform

@testable import Strata

/// A client of a control socket that behaves as the test says (sends too much, never sends, never
/// reads), its blocking calls on threads of their own. The socket is closed when it is released.
final class RawClient: Sendable {
  let fd: Int32

  /// Connects (`fd` is -1 when that failed).
  init(_ path: String) {
    fd = LocalStreamSocket.connect(to: path)
  }

  deinit {
    if fd >= 0 { Syscall.close(fd) }
  }

  /// Sends `bytes` (all that the peer takes; a peer that closes early ends the send).
  func send(_ bytes: [UInt8]) {
    bytes.withUnsafeBytes { raw in
      var offset = 0
      while offset < raw.count {
        let count = blockingSend(fd, raw.baseAddress! + offset, raw.count - offset)
        guard count > 0 else { return }
        offset += count
      }
    }
  }

  /// Everything the peer sends until it closes, or until `seconds` pass.
  func readToEnd(within seconds: Double) async -> String {
    let fd = self.fd
    return await onOwnThread {
      let deadline = Date().addingTimeInterval(seconds)
      var bytes: [UInt8] = []
      var chunk = [UInt8](repeating: 0, count: 65536)
      while deadline.timeIntervalSinceNow > 0 {
        var ready = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard poll(&ready, 1, Int32(deadline.timeIntervalSinceNow * 1000) + 1) > 0 else { continue }
        let count = Syscall.read(fd, &chunk, chunk.count)
        if count <= 0 { break }
        bytes += chunk[..<count]
      }
      return String(decoding: bytes, as: UTF8.self)
    }
  }

  /// Connects, sends `bytes` on a thread of its own (the server may stop reading them), and returns
  /// what the server answered before it closed.
  static func exchange(_ path: String, send bytes: [UInt8], within seconds: Double = 60) async -> String {
    let client = RawClient(path)
    let sending = OwnThread { client.send(bytes) }
    let answer = await client.readToEnd(within: seconds)
    _ = await sending.value(within: seconds)
    return answer
  }
}

/// A blocking `send` that never raises `SIGPIPE` (the server closes on an oversized request); at file
/// scope, where `RawClient.send` does not hide the C function.
private func blockingSend(_ fd: Int32, _ buffer: UnsafeRawPointer, _ count: Int) -> Int {
  Syscall.retryingInterrupts { send(fd, buffer, count, Int32(MSG_NOSIGNAL)) }
}
