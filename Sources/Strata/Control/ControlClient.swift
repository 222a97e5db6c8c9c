import StrataPlatform

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// The client side of the control socket (`config-dump --running`): finds a service's socket, sends
/// one request and reads one answer, each step with a deadline.
package enum ControlClient {
  /// The longest answer read (a status lists every setting).
  package static let maxResponseBytes = 64 << 20

  /// Sends `request` to the socket at `path` and returns the answer.
  /// - Throws: ``StrataError`` naming the path and what went wrong, with what to do about it.
  package static func send(
    _ request: ControlRequest, to path: String, within seconds: Double = 30
  ) throws(StrataError) -> ControlResponse {
    // A service answering as many connections as it takes says "busy": asked again a few times over
    // about two seconds before that is the answer.
    var pause = 50_000 as useconds_t
    for _ in 0..<6 {
      let response = try sendOnce(request, to: path, within: seconds)
      guard !response.ok, response.limit == "maxConnections" else { return response }
      usleep(pause)
      pause *= 2
    }
    return try sendOnce(request, to: path, within: seconds)
  }

  private static func sendOnce(
    _ request: ControlRequest, to path: String, within seconds: Double
  ) throws(StrataError) -> ControlResponse {
    let fd = LocalStreamSocket.connect(to: path)
    guard fd >= 0 else { throw connectionError(path: path, errno: errno) }
    defer { Syscall.close(fd) }
    try checkServer(fd, at: path)
    let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
    var line = Array((try? JSONEncoder().encode(request)) ?? Data())
    line.append(UInt8(ascii: "\n"))
    // The socket is blocking: a request up to the server's limit fits its buffers or is read at once.
    // A server that refuses the connection answers and closes at once: its answer is read even when
    // the send broke on it.
    let sendFailure =
      line.withUnsafeBytes { Syscall.writeAll(fd, $0) } ? nil : String(cString: strerror(errno))
    var received: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 65536)
    while !received.contains(UInt8(ascii: "\n")) {
      let remaining = deadline - ContinuousClock.now
      guard remaining > .zero else {
        throw StrataError(.unreadable, "the service did not answer within \(Int(seconds)) s", path: path)
      }
      var ready = [pollfd(fd: fd, events: Int16(POLLIN), revents: 0)]
      let milliseconds = CInt(
        remaining.components.seconds * 1000 + remaining.components.attoseconds / 1_000_000_000_000_000 + 1)
      guard Syscall.poll(&ready, 1, milliseconds) > 0 else { continue }
      let count = Syscall.read(fd, &chunk, chunk.count)
      guard count > 0 else { break }
      received += chunk[..<count]
      guard received.count <= maxResponseBytes else {
        throw StrataError(.fileTooLarge, "the answer is over \(maxResponseBytes) bytes", path: path)
      }
    }
    if received.isEmpty, let sendFailure {
      throw StrataError(.unreadable, "cannot send the request: \(sendFailure)", path: path)
    }
    let end = received.firstIndex(of: UInt8(ascii: "\n")) ?? received.endIndex
    guard let response = try? JSONDecoder().decode(ControlResponse.self, from: Data(received[..<end])) else {
      throw StrataError(
        .syntax,
        received.isEmpty
          ? "the service closed the connection without an answer"
          : "the service's answer is not one this client reads",
        path: path)
    }
    return response
  }

  /// Refuses a server that is not who the socket's place says it is, before anything is sent to it: its
  /// uid (`SO_PEERCRED`) must be this client's, root's, or that of the owner of the directory holding
  /// the socket (the service's runtime directory). Anyone else may have moved the service's socket away
  /// and bound their own, to receive what an operator sends (overrides, tokens) and answer with values
  /// of their choosing.
  static func checkServer(_ fd: CInt, at path: String) throws(StrataError) {
    guard let peer = LocalStreamSocket.peerCredentials(fd) else {
      throw StrataError(
        .unreadable, "cannot tell who serves the socket: \(String(cString: strerror(errno)))", path: path)
    }
    let me = geteuid()
    if peer.uid == me || peer.uid == 0 { return }
    let directory = ControlServer.parentDirectory(of: path)
    var info = stat()
    let owner = stat(directory, &info) == 0 ? info.st_uid : nil
    if peer.uid == owner { return }
    let expected = owner.map { "uid \($0) (the owner of \(directory))" } ?? "the owner of \(directory)"
    throw StrataError(
      .unreadable,
      "refusing to talk to the socket: it is served by uid \(peer.uid), not by the service's \(expected), "
        + "this user's uid \(me) or root; another user may have replaced the service's socket",
      path: path)
  }

  /// The socket of app `app`: the first of ``ControlSocketPath/candidates(app:environment:)`` that
  /// exists.
  /// - Throws: ``StrataError`` (`notFound`) naming every path looked at.
  package static func socket(ofApp app: String, environment: [String: String]) throws(StrataError) -> String {
    let candidates = ControlSocketPath.candidates(app: app, environment: environment)
    if let found = candidates.first(where: { FileSystem.entry(at: $0) != .missing }) { return found }
    throw StrataError(
      .notFound,
      "no control socket for '\(app)': looked at \(candidates.joined(separator: " and ")); is the service "
        + "running, and has it enabled the socket (SettingsStore.serveControl)? Under systemd its unit needs "
        + "RuntimeDirectory=\(app); --socket PATH names another place")
  }

  /// The control socket process `pid` listens on, found through `/proc` (Linux): the socket named
  /// `control.sock` among its open descriptors.
  /// - Throws: ``StrataError`` (`notFound`) saying what was looked at.
  package static func socket(ofProcess pid: Int32) throws(StrataError) -> String {
    let table = readProcFile("/proc/\(pid)/net/unix")
    guard let table else {
      throw StrataError(.notFound, "no process \(pid) (or /proc/\(pid)/net/unix cannot be read)")
    }
    // "Num RefCount Protocol Flags Type St Inode Path": the inode of every socket bound to a control.sock.
    var paths: [String: String] = [:]
    for line in table.split(separator: "\n").dropFirst() {
      let fields = line.split(separator: " ", omittingEmptySubsequences: true)
      guard fields.count >= 8, lastComponent(of: String(fields[7])) == ControlProtocol.socketName else {
        continue
      }
      paths[String(fields[6])] = String(fields[7])
    }
    let names = (try? FileSystem.names(inDirectory: "/proc/\(pid)/fd")) ?? []
    for name in names {
      guard let target = FileSystem.symlinkTarget("/proc/\(pid)/fd/\(name)"), target.hasPrefix("socket:["),
        let path = paths[String(target.dropFirst(8).dropLast())]
      else { continue }
      return path
    }
    throw StrataError(
      .notFound,
      names.isEmpty
        ? "cannot list the descriptors of process \(pid) (/proc/\(pid)/fd): run as its user or root"
        : "process \(pid) has no control socket open; has it enabled it (SettingsStore.serveControl)?")
  }

  private static func readProcFile(_ path: String) -> String? {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { return nil }
    defer { Syscall.close(fd) }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 65536)
    while bytes.count < 16 << 20 {
      let count = Syscall.read(fd, &chunk, chunk.count)
      guard count > 0 else { break }
      bytes += chunk[..<count]
    }
    return String(decoding: bytes, as: UTF8.self)
  }

  private static func connectionError(path: String, errno code: CInt) -> StrataError {
    let reason =
      switch code {
      case ENOENT:
        "no control socket here: is the service running, and has it enabled the socket (SettingsStore.serveControl)?"
      case EACCES, EPERM:
        "permission denied: only the service's own user and root may use its control socket"
      case ECONNREFUSED: "no process listens on this socket (the service may have ended)"
      default: String(cString: strerror(code))
      }
    return StrataError(.unreadable, "cannot connect: \(reason)", path: path)
  }
}
