import Foundation
import StrataPlatform

/// `GET path` on loopback from this process, on a thread of its own: the body of the answer, or `nil`.
/// Much quicker than starting `curl` on a busy machine, for a test that must ask within a moment (the
/// unit rule's grace) of an edit.
func loopbackGet(port: String, path: String = "/", within seconds: Int = 30) async -> String? {
  await onOwnThread { () -> String? in
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    var timeout = timeval()
    timeout.tv_sec = seconds
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    guard let number = UInt16(port) else { return nil }
    address.sin_port = in_port_t(number.bigEndian)
    address.sin_addr.s_addr = in_addr_t(UInt32(0x7F00_0001).bigEndian)
    let connected = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
      }
    }
    guard connected == 0 else { return nil }
    let request = Array("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".utf8)
    let sent = request.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    guard sent == request.count else { return nil }
    var answer: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 4096)
    while true {
      let count = recv(fd, &buffer, buffer.count, 0)
      if count > 0 {
        answer += buffer[0..<count]
      } else if count < 0 && errno == EINTR {
        continue
      } else {
        break
      }
    }
    guard let headerEnd = answer.firstRange(of: Array("\r\n\r\n".utf8))?.upperBound else { return nil }
    return String(decoding: answer[headerEnd...], as: UTF8.self)
  }
}
