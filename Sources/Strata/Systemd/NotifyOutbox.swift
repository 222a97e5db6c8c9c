import StrataPlatform

/// One `sd_notify` datagram: its fields, each sanitised on its UTF-8 bytes, and what the outbox may do
/// with it when the socket is full.
struct NotifyMessage: Sendable, Equatable {
  /// What a message says, which decides whether it may be merged or dropped while it waits.
  enum Kind: Sendable, Equatable {
    /// Only `STATUS=` fields: a newer status replaces it.
    case status
    /// A change of state (`READY=`, `RELOADING=` or `STOPPING=` among its fields): kept.
    case state
    /// Anything else (`MAINPID=`, `WATCHDOG=1`, …).
    case other
  }

  /// The datagram: the fields joined by newlines.
  let bytes: [UInt8]
  let kind: Kind

  /// The datagram for `fields` (`NAME=value` each). A newline, a carriage return or a NUL inside a
  /// field becomes a space: systemd splits fields at newlines (a value must not start a field of its
  /// own, such as `READY=1` or `MAINPID=`), and drops a datagram that holds a NUL.
  init(fields: [String]) {
    let sanitised = fields.map { field in
      field.utf8.map { byte in byte == 0x0A || byte == 0x0D || byte == 0 ? UInt8(ascii: " ") : byte }
    }
    bytes = Array(sanitised.joined(separator: [0x0A]))
    let states = ["READY=", "RELOADING=", "STOPPING="].map { Array($0.utf8) }
    let status = Array("STATUS=".utf8)
    if sanitised.contains(where: { field in states.contains { field.starts(with: $0) } }) {
      kind = .state
    } else if !sanitised.isEmpty && sanitised.allSatisfy({ $0.starts(with: status) }) {
      kind = .status
    } else {
      kind = .other
    }
  }
}

/// The messages waiting for a full socket, oldest first, at most ``capacity`` of them.
///
/// A status-only message that follows another replaces it (only the newest status is worth showing).
/// When the queue is full, room is made by dropping the oldest status-only message, else the oldest
/// message that is not a change of state, else the oldest change of state: the newest messages, which
/// say what the service is doing now, are always kept.
struct NotifyQueue: Sendable {
  /// How many messages may wait.
  static let capacity = 64

  /// The waiting messages, oldest first.
  private(set) var messages: [NotifyMessage] = []
  /// How many messages were dropped to keep within ``capacity``.
  private(set) var dropped = 0

  var isEmpty: Bool { messages.isEmpty }
  var first: NotifyMessage? { messages.first }

  /// Queues `message` after the others, merging or dropping as the type's documentation says.
  mutating func append(_ message: NotifyMessage) {
    if message.kind == .status, messages.last?.kind == .status {
      messages[messages.count - 1] = message
      return
    }
    if messages.count >= Self.capacity {
      let victim =
        messages.firstIndex { $0.kind == .status } ?? messages.firstIndex { $0.kind == .other } ?? 0
      messages.remove(at: victim)
      dropped += 1
    }
    messages.append(message)
  }

  /// Removes the oldest message (it was sent, or can never be).
  mutating func removeFirst() {
    messages.removeFirst()
  }
}

/// The sending side of one notification socket, shared by every `SystemdNotifier` of that path.
///
/// Sends never block (`MSG_DONTWAIT`). When the socket's queue is full (systemd is not reading), a
/// message waits in a ``NotifyQueue`` and a thread of its own retries, 5 ms after the failure and then
/// twice as long after each retry that moves nothing (up to a second); it ends once the queue is empty.
/// A message sent while others wait joins the queue behind them, so that the order stays that of the
/// calls.
final class NotifyOutbox: Sendable {
  /// Whether a send went through.
  enum Delivery: Equatable {
    case sent
    /// The socket's queue is full (or the system is short of buffers or descriptors): try again later.
    case full
    /// It can never go: nothing listens at the path, or the message is too long.
    case failed
  }

  /// The socket path's bytes as `sun_path` holds them (an abstract name starts with a NUL), or `nil`
  /// when the path is too long for a socket address.
  private let path: [UInt8]?
  private let isAbstract: Bool
  // The queue is non-empty exactly while a retry thread runs: the thread is started by the call that
  // queues into an empty queue, and ends, with the lock held, when it finds the queue empty.
  private let queue = Locked(NotifyQueue())

  /// The outboxes by socket path, held weakly: notifiers and a running retry thread keep theirs alive.
  private static let outboxes = Locked<[String: WeakOutbox]>([:])

  private struct WeakOutbox: Sendable {
    weak var outbox: NotifyOutbox?
  }

  /// The outbox of `socketPath` (`@name`: an abstract socket), shared with every notifier of that path.
  static func forSocket(_ socketPath: String) -> NotifyOutbox {
    outboxes.withLock { outboxes in
      if let outbox = outboxes[socketPath]?.outbox { return outbox }
      outboxes = outboxes.filter { $0.value.outbox != nil }
      let outbox = NotifyOutbox(socketPath: socketPath)
      outboxes[socketPath] = WeakOutbox(outbox: outbox)
      return outbox
    }
  }

  private init(socketPath: String) {
    var path = Array(socketPath.utf8)
    isAbstract = path.first == UInt8(ascii: "@")
    if isAbstract { path[0] = 0 }
    self.path = path.count < MemoryLayout.size(ofValue: sockaddr_un().sun_path) ? path : nil
  }

  /// The messages waiting for the socket, oldest first (for tests).
  var waiting: [NotifyMessage] { queue.withLock { $0.messages } }

  /// Sends `message` now, or queues it when the socket is full or other messages wait; `false` when it
  /// can never be sent (see ``Delivery/failed``).
  func post(_ message: NotifyMessage) -> Bool {
    guard path != nil else { return false }
    let (accepted, startsRetrying) = queue.withLock { queue -> (Bool, Bool) in
      if !queue.isEmpty {
        queue.append(message)
        return (true, false)
      }
      // The send happens with the lock held: it never blocks, and holding the lock is what keeps the
      // messages of concurrent callers and of the retry thread in the order of the calls.
      switch send(message.bytes) {
      case .sent: return (true, false)
      case .failed: return (false, false)
      case .full:
        queue.append(message)
        return (true, true)
      }
    }
    if startsRetrying, !startRetrying() {
      // No thread to retry (the process is out of threads): what waits could never leave.
      queue.withLock { $0 = NotifyQueue() }
      return false
    }
    return accepted
  }

  /// Sends one datagram without blocking.
  /// The corresponding C function is `sendto`.
  private func send(_ bytes: [UInt8]) -> Delivery {
    guard let path else { return .failed }
    let fd = LocalDatagramSocket.open()
    guard fd >= 0 else { return errno == EMFILE || errno == ENFILE || errno == ENOBUFS ? .full : .failed }
    defer { close(fd) }
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: path) }
    // An abstract name is exactly its bytes; a path ends with its NUL.
    let length = socklen_t(MemoryLayout<sa_family_t>.size + path.count + (isAbstract ? 0 : 1))
    while true {
      let sent = withUnsafePointer(to: &address) { pointer in
        pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
          bytes.withUnsafeBytes {
            sendto(
              fd, $0.baseAddress, $0.count, LocalDatagramSocket.nonBlockingSendFlags, socketAddress, length)
          }
        }
      }
      if sent == bytes.count { return .sent }
      guard sent < 0 else { return .failed }
      switch errno {
      case EINTR: continue
      case EAGAIN, EWOULDBLOCK, ENOBUFS, ENOMEM: return .full
      default: return .failed
      }
    }
  }

  /// Starts the retry thread; `false` when no thread could be created.
  private func startRetrying() -> Bool {
    DetachedThread.start { [self] in retryUntilEmpty() }
  }

  /// The retry thread: sends what waits, in order, sleeping longer while nothing moves.
  private func retryUntilEmpty() {
    let shortest: Int64 = 5_000_000  // nanoseconds
    let longest: Int64 = 1_000_000_000
    var delay = shortest
    while true {
      var pause = timespec(tv_sec: Int(delay / 1_000_000_000), tv_nsec: Int(delay % 1_000_000_000))
      var left = timespec()
      while nanosleep(&pause, &left) != 0 && errno == EINTR { pause = left }
      let (isEmpty, moved) = queue.withLock { queue -> (Bool, Bool) in
        var moved = false
        while let message = queue.first {
          // A message that can never go (nobody listens any more) is dropped, as a direct send drops it.
          if send(message.bytes) == .full { return (false, moved) }
          queue.removeFirst()
          moved = true
        }
        return (true, moved)
      }
      if isEmpty { return }
      delay = moved ? shortest : min(delay * 2, longest)
    }
  }
}
