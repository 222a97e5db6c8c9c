import StrataPlatform

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// The transport of a store's control socket: one thread of its own that polls the listening socket,
/// a wake pipe and every open connection, all non-blocking, so that no client (one that sends slowly,
/// sends too much, or never reads its answer) holds the thread, the store's reload loop or more memory
/// than ``ControlProtocol/maxRequestBytes`` per connection.
///
/// Each connection is checked as it is accepted: the peer's uid (`SO_PEERCRED`) must be the service's
/// own effective uid or root, else it is refused and reported. It then sends one request line, gets
/// one answer line, and is closed; one that takes longer than ``ControlProtocol/connectionTimeout``
/// in all is closed with an error naming the limit. Requests are answered on this thread by
/// `handle`, which may wait for the store's reload loop (a `set`): meanwhile other connections wait,
/// the loop never does.
package final class ControlServer: Sendable {
  /// What the server does with what it reads; called on the server's thread.
  struct Handlers: Sendable {
    /// Answers one request.
    var handle: @Sendable (ControlRequest) -> ControlResponse
    /// Reports a refused connection.
    var refused: @Sendable (String) -> Void
    /// Runs on every turn of the loop (expires overrides).
    var tick: @Sendable () -> Void
    /// Seconds until `tick` has something to do, if ever.
    var nextTick: @Sendable () -> Double?
    /// Runs once on the server's thread as it ends (ends the overrides).
    var stopped: @Sendable () -> Void
  }

  /// The socket's path.
  package let path: String
  private let listening: CInt
  private let wakeRead: CInt
  private let wakeWrite: CInt
  private let handlers: Handlers
  private let allowedUID: uid_t
  private let ended = Locked<(done: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))
  /// Whether ``stop()`` was called, and whether the descriptors are closed: a wake after that must not
  /// write to a descriptor number another thread may have opened since.
  private let lifecycle = Locked<(stopping: Bool, closed: Bool)>((false, false))

  /// Listens at `path` (mode `mode`) and starts the thread.
  /// - Throws: ``StrataError`` (`writeFailed`) naming the path and the reason when the socket cannot be
  ///   made, or another process serves at the path already.
  init(path: String, mode: mode_t, handlers: Handlers) throws(StrataError) {
    self.path = path
    self.handlers = handlers
    allowedUID = geteuid()
    try Self.checkDirectory(of: path)
    try Self.removeStaleSocket(at: path)
    listening = LocalStreamSocket.listen(at: path, mode: mode)
    guard listening >= 0 else {
      throw StrataError(
        .writeFailed, "cannot listen on the control socket: \(String(cString: strerror(errno)))", path: path)
    }
    var fds: [CInt] = [-1, -1]
    guard CloseOnExecPipe.open(&fds) == 0 else {
      let reason = String(cString: strerror(errno))
      Syscall.close(listening)
      unlink(path)
      throw StrataError(.writeFailed, "cannot make the control socket's wake pipe: \(reason)", path: path)
    }
    (wakeRead, wakeWrite) = (fds[0], fds[1])
    _ = fcntl(wakeRead, F_SETFL, fcntl(wakeRead, F_GETFL) | O_NONBLOCK)
    _ = fcntl(wakeWrite, F_SETFL, fcntl(wakeWrite, F_GETFL) | O_NONBLOCK)
    guard DetachedThread.start({ [self] in loop() }) else {
      closeAll()
      throw StrataError(.writeFailed, "cannot start the control socket's thread", path: path)
    }
  }

  /// Refuses a directory that another user could replace the socket in: one owned by another user (not
  /// this process's, not root), or one its group or others may write without the sticky bit (which
  /// keeps them from renaming or removing a file they do not own). There, another user could move the
  /// socket away and serve one of their own, receiving what operators send (overrides, tokens), or
  /// plant a link where the socket's mode is set.
  static func checkDirectory(of path: String) throws(StrataError) {
    let directory = parentDirectory(of: path)
    var info = stat()
    guard stat(directory, &info) == 0 else {
      throw StrataError(
        .writeFailed, "cannot use the control socket's directory: \(String(cString: strerror(errno)))",
        path: directory)
    }
    let me = geteuid()
    if info.st_uid != me && info.st_uid != 0 {
      throw StrataError(
        .writeFailed,
        "refusing to serve the control socket in a directory owned by uid \(info.st_uid), not by this "
          + "process's uid \(me) or root: its owner could replace the socket",
        path: directory)
    }
    let mode = info.st_mode & 0o7777
    if mode & 0o022 != 0 && mode & S_ISVTX == 0 {
      throw StrataError(
        .writeFailed,
        "refusing to serve the control socket in a directory its group or others may write (mode "
          + "\(String(mode, radix: 8))): another user could replace the socket and receive what is sent to "
          + "it; make it 0700 or 0755 (RuntimeDirectoryMode= in the unit)",
        path: directory)
    }
  }

  /// The directory holding `path` (`.` for a bare name).
  static func parentDirectory(of path: String) -> String {
    guard let slash = path.lastIndex(of: "/") else { return "." }
    return slash == path.startIndex ? "/" : String(path[..<slash])
  }

  /// Refuses a path another live process serves; removes a socket file left by one that ended.
  private static func removeStaleSocket(at path: String) throws(StrataError) {
    var info = stat()
    guard lstat(path, &info) == 0 else { return }
    guard info.st_mode & S_IFMT == S_IFSOCK else {
      throw StrataError(
        .writeFailed, "cannot make the control socket: something that is not a socket is there", path: path)
    }
    let probe = LocalStreamSocket.connect(to: path)
    if probe >= 0 {
      Syscall.close(probe)
      throw StrataError(.writeFailed, "another process serves a control socket here already", path: path)
    }
    unlink(path)
  }

  /// Makes the loop look at the clock and its connections again now (an override set or a test's clock
  /// moved).
  package func wake() {
    lifecycle.withLock { state in
      guard !state.closed else { return }
      var byte: UInt8 = 1
      _ = Syscall.write(wakeWrite, &byte, 1)
    }
  }

  /// Ends the thread, closes every connection and removes the socket file (once; later calls do
  /// nothing).
  package func stop() {
    lifecycle.withLock { $0.stopping = true }
    wake()
  }

  /// Suspends until the thread has ended (after ``stop()``).
  package func finished() async {
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
      let done = ended.withLock { state in
        if !state.done { state.waiters.append(continuation) }
        return state.done
      }
      if done { continuation.resume() }
    }
  }

  /// One connection's progress: what it sent so far, then the answer going out.
  private struct Connection {
    let fd: CInt
    /// When the request must be whole by, then (once answered) when the answer must be sent by.
    var deadline: ContinuousClock.Instant
    var received: [UInt8] = []
    var answer: [UInt8]? = nil
    var sent = 0

    /// Whether the connection is done with: its answer went out whole, or its peer went away.
    var isFinished: Bool { sent < 0 || (answer.map { sent == $0.count } ?? false) }
  }

  private func loop() {
    var connections: [Connection] = []
    // After an accept that failed for want of descriptors or memory, the listening socket is left out of
    // the poll for a while: it stays readable, and polling it would spin.
    var acceptPausedUntil: ContinuousClock.Instant? = nil
    while !lifecycle.withLock({ $0.stopping }) {
      handlers.tick()
      if let paused = acceptPausedUntil, ContinuousClock.now >= paused { acceptPausedUntil = nil }
      var fds = [
        pollfd(fd: listening, events: Int16(POLLIN), revents: 0),
        pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0),
      ]
      fds += connections.map {
        pollfd(fd: $0.fd, events: Int16($0.answer == nil ? POLLIN : POLLOUT), revents: 0)
      }
      let now = ContinuousClock.now
      if acceptPausedUntil != nil { fds[0].fd = -1 }
      var timeout =
        (connections.map(\.deadline) + [acceptPausedUntil].compactMap { $0 }).map { $0 - now }.min()
        .map(Self.milliseconds) ?? -1
      if let next = handlers.nextTick() {
        let tick = CInt(min(next * 1000, 3_600_000).rounded(.up))
        timeout = timeout < 0 ? tick : min(timeout, tick)
      }
      _ = Syscall.poll(&fds, fds.count, timeout)
      if fds[1].revents != 0 { drainWakes() }
      for index in connections.indices.reversed() {
        let revents = fds[index + 2].revents
        if revents != 0 { serve(&connections[index], revents: revents) }
        if connections[index].isFinished || ContinuousClock.now >= connections[index].deadline {
          if !connections[index].isFinished && connections[index].answer == nil {
            answerTimeout(connections[index].fd)
          }
          Syscall.close(connections[index].fd)
          connections.remove(at: index)
        }
      }
      if fds[0].revents != 0, !acceptWaiting(into: &connections) {
        acceptPausedUntil = ContinuousClock.now + .milliseconds(100)
      }
    }
    for connection in connections { Syscall.close(connection.fd) }
    closeAll()
    handlers.stopped()
    let waiters = ended.withLock { state in
      state.done = true
      defer { state.waiters = [] }
      return state.waiters
    }
    for waiter in waiters { waiter.resume() }
  }

  private static func milliseconds(_ duration: Duration) -> CInt {
    let (seconds, attoseconds) = duration.components
    guard seconds >= 0 else { return 0 }
    return CInt(min(seconds, 3600) * 1000 + attoseconds / 1_000_000_000_000_000 + 1)
  }

  private func drainWakes() {
    var bytes = [UInt8](repeating: 0, count: 64)
    while Syscall.read(wakeRead, &bytes, bytes.count) > 0 {}
  }

  /// Accepts every waiting connection: refused when its peer is another user; beyond the limit, in the
  /// place of the oldest one still without a whole request ("busy" only when none is).
  /// - Returns: `false` when an accept failed for another reason than none waiting (no descriptor left).
  private func acceptWaiting(into connections: inout [Connection]) -> Bool {
    while true {
      let fd = LocalStreamSocket.accept(listening)
      guard fd >= 0 else { return errno == EAGAIN || errno == EWOULDBLOCK || errno == ECONNABORTED }
      guard let peer = LocalStreamSocket.peerCredentials(fd), peer.uid == allowedUID || peer.uid == 0 else {
        let who = LocalStreamSocket.peerCredentials(fd)
        let pid = who?.pid.map { " (pid \($0))" } ?? ""
        let uid = who.map { "uid \($0.uid)" } ?? "a process whose uid cannot be told"
        let message = "refused a connection from \(uid)\(pid): only uid \(allowedUID) and root may connect"
        sendBestEffort(fd, .failure("refused: only uid \(allowedUID) and root may use this socket"))
        Syscall.close(fd)
        handlers.refused(message)
        continue
      }
      if connections.count >= ControlProtocol.maxConnections {
        // Full: the slot of the connection that has waited longest without sending a whole request
        // (connections are kept in the order they came) goes to the new one, so that clients that
        // dribble bytes and reconnect cannot keep out one that asks at once. Only when every slot is
        // sending an answer is the new one told to come back.
        guard let oldest = connections.firstIndex(where: { $0.answer == nil }) else {
          sendBestEffort(
            fd,
            .failure(
              "busy: \(ControlProtocol.maxConnections) connections are being answered; try again",
              limit: "maxConnections"))
          Syscall.close(fd)
          continue
        }
        sendBestEffort(
          connections[oldest].fd,
          .failure(
            "closed: no whole request yet, and a newer connection needed the slot (\(ControlProtocol.maxConnections) at most)",
            limit: "maxConnections"))
        Syscall.close(connections[oldest].fd)
        connections.remove(at: oldest)
      }
      connections.append(
        Connection(fd: fd, deadline: ContinuousClock.now + ControlProtocol.connectionTimeout))
    }
  }

  /// Reads what the connection sent (up to the limit), answers a complete line, or sends the answer on.
  private func serve(_ connection: inout Connection, revents: Int16) {
    if connection.answer == nil {
      let room = ControlProtocol.maxRequestBytes + 1 - connection.received.count
      var chunk = [UInt8](repeating: 0, count: min(room, 65536))
      let count = Syscall.read(connection.fd, &chunk, chunk.count)
      if count < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) { return }
      guard count > 0 else {
        connection.sent = -1  // the client closed (or failed) before a whole request: nothing to answer
        return
      }
      // Only the new bytes are searched for the newline: searching all of them at each read made a
      // request sent in small pieces cost the square of its size.
      let start = connection.received.count
      connection.received += chunk[..<count]
      if let end = connection.received[start...].firstIndex(of: UInt8(ascii: "\n")) {
        connection.answer = encode(answer(Array(connection.received[..<end])))
        connection.received = []
        // The time a request took to answer (a `set` waits for the pipeline) is not the client's.
        connection.deadline = ContinuousClock.now + ControlProtocol.connectionTimeout
      } else if connection.received.count > ControlProtocol.maxRequestBytes {
        connection.answer = encode(
          .failure(
            "request over \(ControlProtocol.maxRequestBytes) bytes without a newline; refused",
            limit: "maxRequestBytes"))
        connection.received = []
      } else {
        return
      }
    }
    guard let answer = connection.answer, connection.sent >= 0 else { return }
    let count = answer.withUnsafeBytes {
      LocalStreamSocket.send(connection.fd, $0.baseAddress! + connection.sent, answer.count - connection.sent)
    }
    if count > 0 {
      connection.sent += count
    } else if count < 0 && errno != EAGAIN && errno != EWOULDBLOCK {
      connection.sent = -1  // the peer went away
    }
  }

  private func answer(_ line: [UInt8]) -> ControlResponse {
    guard let request = try? JSONDecoder().decode(ControlRequest.self, from: Data(line)) else {
      return .failure(
        "not a request: expected one JSON object such as {\"version\":1,\"request\":\"status\"}")
    }
    guard request.version == ControlProtocol.version else {
      return .failure(
        "protocol version \(request.version) is not spoken here; this service speaks version \(ControlProtocol.version)"
      )
    }
    return handlers.handle(request)
  }

  private func encode(_ response: ControlResponse) -> [UInt8] {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    let data =
      (try? encoder.encode(response)) ?? Data(#"{"ok":false,"error":"cannot encode the answer"}"#.utf8)
    return Array(data) + [UInt8(ascii: "\n")]
  }

  /// Sends an answer if the socket takes it at once; a connection refused or timed out gets no more.
  private func sendBestEffort(_ fd: CInt, _ response: ControlResponse) {
    let bytes = encode(response)
    _ = bytes.withUnsafeBytes { LocalStreamSocket.send(fd, $0.baseAddress, $0.count) }
  }

  private func answerTimeout(_ fd: CInt) {
    let seconds = ControlProtocol.connectionTimeout.components.seconds
    sendBestEffort(
      fd, .failure("no complete request within \(seconds) s; closed", limit: "connectionTimeout"))
  }

  private func closeAll() {
    lifecycle.withLock { state in
      state.closed = true
      Syscall.close(listening)
      Syscall.close(wakeRead)
      Syscall.close(wakeWrite)
      unlink(path)
    }
  }
}
