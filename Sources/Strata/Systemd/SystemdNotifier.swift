import StrataPlatform

/// Tells systemd how a service is doing through the `NOTIFY_SOCKET` datagram socket, for units of
/// `Type=notify` and `Type=notify-reload` (the `sd_notify` protocol, without libsystemd).
///
/// The store's run loop makes one when asked to (`run(notifySystemd: true)`), and it says `READY=1` once every layer listens, `RELOADING=1` with
/// `MONOTONIC_USEC=` when a reload request (`SIGHUP`) arrives and `READY=1` again once that reload is
/// applied, `STATUS=` with the configuration's generation (and the files that failed, the edits
/// rejected) after each reload, and `STOPPING=1` when the run ends:
///
/// Outside systemd (`NOTIFY_SOCKET` unset) every call does nothing. A socket path that starts with `@`
/// names an abstract socket.
///
/// A notification never holds up its caller (the store's reload loop): sends do not block. When the
/// socket's queue is full (systemd is busy, or nobody reads the socket), the message waits in an outbox
/// shared by every notifier of that socket path, and a thread of its own sends it once there is room,
/// retrying after 5 ms and then up to twice as long each time, up to a second, until the outbox is
/// empty. Messages leave in the order of the calls. While they wait, consecutive status-only messages
/// (`STATUS=` alone) are merged into the newest; `READY=`, `RELOADING=` and `STOPPING=` are kept. At most
/// 64 messages wait: past that the oldest status-only message is dropped first, then the oldest other
/// message, and only when every waiting message is a change of state the
/// oldest of those, so that the newest state always reaches systemd.
///
/// Every field is sanitised on its UTF-8 bytes: a newline, a carriage return or a NUL inside it becomes
/// a space, so that a status built from a value can neither start a field of its own (`READY=1`,
/// `MAINPID=`) nor make systemd drop the datagram.
struct SystemdNotifier: Sendable {
  /// The socket's path (`@name` for an abstract socket), or `nil` when not run by systemd.
  let socketPath: String?
  /// The outbox shared by the notifiers of `socketPath`.
  private let outbox: NotifyOutbox?

  /// A notifier for the socket systemd gave this process in `NOTIFY_SOCKET`, if any.
  init() {
    self.init(socketPath: getenv("NOTIFY_SOCKET").map { String(cString: $0) })
  }

  /// A notifier for a given socket (`nil` or empty: notifications are dropped).
  init(socketPath: String?) {
    self.socketPath = socketPath?.isEmpty == false ? socketPath : nil
    outbox = self.socketPath.map(NotifyOutbox.forSocket)
  }

  /// Whether notifications go anywhere.
  var isEnabled: Bool { socketPath != nil }

  /// Says that the service is ready (start-up done, or a reload applied), with an optional status line.
  @discardableResult
  func ready(status: String? = nil) -> Bool {
    send(["READY=1"] + (status.map { ["STATUS=\($0)"] } ?? []))
  }

  /// Says that the service is reloading its configuration; `ready(status:)` must follow once the
  /// reload is applied (systemd waits for it before `systemctl reload` returns).
  @discardableResult
  func reloading() -> Bool {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return send(["RELOADING=1", "MONOTONIC_USEC=\(Int(now.tv_sec) * 1_000_000 + Int(now.tv_nsec) / 1000)"])
  }

  /// Says that the service is stopping.
  @discardableResult
  func stopping() -> Bool { send(["STOPPING=1"]) }

  /// Sets the one-line status `systemctl status` shows.
  @discardableResult
  func status(_ text: String) -> Bool { send(["STATUS=\(text)"]) }

  /// Sends `fields` (`NAME=value`, one per line) as one datagram, without blocking.
  ///
  /// A newline, a carriage return or a NUL inside a field becomes a space.
  /// - Returns: `true` when the datagram was sent, or queued because the socket's queue is full or
  ///   earlier messages still wait (it is sent later, off the caller's thread; see the type's
  ///   documentation for what may be merged or dropped meanwhile); `false` when there is no socket, the
  ///   path is too long for a socket address, or the send failed for another reason (nothing listens at
  ///   the path, for example): that message is dropped.
  @discardableResult
  func send(_ fields: [String]) -> Bool {
    guard let outbox else { return false }
    return outbox.post(NotifyMessage(fields: fields))
  }
}
