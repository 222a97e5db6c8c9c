// The C library, whichever this system has (a program's own chain: Strata's platform layer is not
// part of its API).
#if canImport(Darwin)
  import Darwin
#elseif canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// A request, as much of HTTP/1.1 as this sample needs.
struct Request {
  var method: String
  var path: String
  var headers: [String: String]
  var body: [UInt8]
}

/// A response; always `Connection: close`.
struct Response {
  var status: Int
  var reason: String
  var contentType = "text/plain; charset=utf-8"
  var body: String

  var bytes: [UInt8] {
    let payload = Array(body.utf8)
    let head =
      "HTTP/1.1 \(status) \(reason)\r\nContent-Type: \(contentType)\r\nContent-Length: \(payload.count)\r\n"
      + "Connection: close\r\n\r\n"
    return Array(head.utf8) + payload
  }
}

/// A blocking listener on a loopback (or configured) address.
final class Listener: Sendable {
  let fd: Int32
  let port: Int

  /// Binds and listens. - Throws: a message naming the failing call.
  init(host: String, port: Int) throws(ServerError) {
    #if canImport(Glibc)
      let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)  // an enum in glibc's headers
    #else
      let fd = socket(AF_INET, SOCK_STREAM, 0)
    #endif
    guard fd >= 0 else { throw ServerError("socket: \(String(cString: strerror(errno)))") }
    var yes: Int32 = 1
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = in_port_t(UInt16(port).bigEndian)
    guard inet_pton(AF_INET, host, &address.sin_addr) == 1 else {
      close(fd)
      throw ServerError("listen.host '\(host)' is not an IPv4 address")
    }
    let bound = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
      }
    }
    guard bound == 0, listen(fd, 64) == 0 else {
      let message = String(cString: strerror(errno))
      close(fd)
      throw ServerError("cannot listen on \(host):\(port): \(message)")
    }
    var actual = sockaddr_in()
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafeMutablePointer(to: &actual) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
    }
    self.fd = fd
    self.port = Int(UInt16(bigEndian: actual.sin_port))
  }

  /// Accepts connections forever, answering each with `handle` (one at a time: this is a sample).
  func serve(_ handle: (Request) -> Response) -> Never {
    while true {
      let client = accept(fd, nil, nil)
      if client < 0 { continue }
      var timeout = timeval(tv_sec: 5, tv_usec: 0)
      setsockopt(client, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
      let response =
        readRequest(client).map(handle) ?? Response(status: 400, reason: "Bad Request", body: "bad request\n")
      #if canImport(Darwin)
        // No MSG_NOSIGNAL on Darwin: the socket itself is told not to raise SIGPIPE.
        var one: Int32 = 1
        setsockopt(client, SOL_SOCKET, SO_NOSIGPIPE, &one, socklen_t(MemoryLayout<Int32>.size))
        let flags: Int32 = 0
      #else
        let flags = Int32(MSG_NOSIGNAL)
      #endif
      let bytes = response.bytes
      var sent = 0
      while sent < bytes.count {
        let count = bytes.withUnsafeBytes { send(client, $0.baseAddress! + sent, $0.count - sent, flags) }
        if count > 0 {
          sent += count
        } else if count < 0 && errno == EINTR {
          continue
        } else {
          break
        }
      }
      close(client)
    }
  }

  /// Serves as ``serve(_:)`` does, on a thread of its own: `accept` and `recv` block their thread, and
  /// the cooperative pool's few threads are not for blocking. Returns only when the task is cancelled
  /// (the thread serves on until the process ends).
  func serveOnItsOwnThread(_ handle: @escaping @Sendable (Request) -> Response) async {
    startThread { self.serve(handle) }
    // The thread serves until the process ends; this task waits with it, holding no thread.
    while !Task.isCancelled { try? await Task.sleep(for: .seconds(3600)) }
  }

  private func readRequest(_ client: Int32) -> Request? {
    var data: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 4096)
    var headerEnd: Int?
    while headerEnd == nil {
      let count = receive(client, into: &buffer)
      if count <= 0 || data.count > 64 * 1024 { return nil }
      data += buffer[0..<count]
      headerEnd = data.firstRange(of: Array("\r\n\r\n".utf8))?.upperBound
    }
    guard let headerEnd else { return nil }
    let head = String(decoding: data[..<headerEnd], as: UTF8.self).split(separator: "\r\n")
    let start = head.first?.split(separator: " ") ?? []
    guard start.count >= 2 else { return nil }
    var headers: [String: String] = [:]
    for line in head.dropFirst() {
      if let colon = line.firstIndex(of: ":") {
        headers[line[..<colon].lowercased()] =
          line[line.index(after: colon)...].drop { $0 == " " }.description
      }
    }
    var body = Array(data[headerEnd...])
    let length = Int(headers["content-length"] ?? "0") ?? 0
    // Read at most one byte past the limit the handler will check, so huge bodies are not buffered.
    let wanted = min(length, 16 * 1024 * 1024)
    while body.count < wanted {
      let count = receive(client, into: &buffer)
      if count <= 0 { break }
      body += buffer[0..<count]
    }
    return Request(method: String(start[0]), path: String(start[1]), headers: headers, body: body)
  }

  /// One `recv`, again when a signal interrupted it: a socket with a receive timeout is not restarted
  /// after a handler runs, and this process catches `SIGHUP`.
  private func receive(_ client: Int32, into buffer: inout [UInt8]) -> Int {
    while true {
      let count = buffer.withUnsafeMutableBytes { recv(client, $0.baseAddress, $0.count, 0) }
      if count >= 0 || errno != EINTR { return count }
    }
  }
}

/// A failure to start serving.
struct ServerError: Error, CustomStringConvertible {
  var description: String
  init(_ description: String) { self.description = description }
}
