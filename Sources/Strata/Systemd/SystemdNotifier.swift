import Glibc

/// Tells systemd how a service is doing through the `NOTIFY_SOCKET` datagram socket, for units of
/// `Type=notify` and `Type=notify-reload` (the `sd_notify` protocol, without libsystemd).
///
/// Give one to the store's run loop and it says `READY=1` once every layer listens, `RELOADING=1` with
/// `MONOTONIC_USEC=` when a reload request (`SIGHUP`) arrives and `READY=1` again once that reload is
/// applied, and `STATUS=` with the configuration's generation after each reload:
///
/// ```swift
/// await store.run(reloadOnHangup: true, notifying: SystemdNotifier())
/// ```
///
/// Outside systemd (`NOTIFY_SOCKET` unset) every call does nothing. A socket path that starts with `@`
/// names an abstract socket.
public struct SystemdNotifier: Sendable {
  /// The socket's path (`@name` for an abstract socket), or `nil` when not run by systemd.
  public let socketPath: String?

  /// A notifier for the socket systemd gave this process in `NOTIFY_SOCKET`, if any.
  public init() {
    self.init(socketPath: getenv("NOTIFY_SOCKET").map { String(cString: $0) })
  }

  /// A notifier for a given socket (`nil` or empty: notifications are dropped).
  public init(socketPath: String?) {
    self.socketPath = socketPath?.isEmpty == false ? socketPath : nil
  }

  /// Whether notifications go anywhere.
  public var isEnabled: Bool { socketPath != nil }

  /// Says that the service is ready (start-up done, or a reload applied), with an optional status line.
  @discardableResult
  public func ready(status: String? = nil) -> Bool {
    send(["READY=1"] + (status.map { ["STATUS=\($0)"] } ?? []))
  }

  /// Says that the service is reloading its configuration; ``ready(status:)`` must follow once the
  /// reload is applied (systemd waits for it before `systemctl reload` returns).
  @discardableResult
  public func reloading() -> Bool {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return send(["RELOADING=1", "MONOTONIC_USEC=\(Int(now.tv_sec) * 1_000_000 + Int(now.tv_nsec) / 1000)"])
  }

  /// Says that the service is stopping.
  @discardableResult
  public func stopping() -> Bool { send(["STOPPING=1"]) }

  /// Sets the one-line status `systemctl status` shows.
  @discardableResult
  public func status(_ text: String) -> Bool { send(["STATUS=\(text)"]) }

  /// Sends `fields` (`NAME=value`, one per line) as one datagram; `false` when it could not be sent or
  /// there is no socket. Newlines inside a value would start a new field: they become spaces.
  @discardableResult
  public func send(_ fields: [String]) -> Bool {
    guard let socketPath else { return false }
    let message = fields.map { $0.replacing("\n", with: " ") }.joined(separator: "\n")
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    var path = Array(socketPath.utf8)
    let isAbstract = path.first == UInt8(ascii: "@")
    if isAbstract { path[0] = 0 }
    let capacity = MemoryLayout.size(ofValue: address.sun_path)
    guard path.count < capacity else { return false }
    withUnsafeMutableBytes(of: &address.sun_path) { buffer in
      buffer.copyBytes(from: path)
    }
    // An abstract name is exactly its bytes; a path ends with its NUL.
    let length = MemoryLayout<sa_family_t>.size + path.count + (isAbstract ? 0 : 1)
    let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    guard fd >= 0 else { return false }
    defer { close(fd) }
    let bytes = Array(message.utf8)
    let sent = withUnsafePointer(to: &address) { pointer in
      pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
        bytes.withUnsafeBytes {
          sendto(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL), socketAddress, socklen_t(length))
        }
      }
    }
    return sent == bytes.count
  }
}
