/// Unix-domain stream sockets (a store's control socket): listening on a path with a mode, accepting
/// without blocking, connecting, sending without `SIGPIPE`, and asking who is at the other end, which
/// each platform spells in its own way.
public enum LocalStreamSocket {
  /// The process at the other end of a connection, as the kernel saw it when it connected.
  public struct PeerCredentials: Sendable, Equatable {
    /// The peer's effective user id.
    public var uid: uid_t
    /// The peer's process id, where the platform tells it (`nil` on Darwin, see
    /// ``peerCredentials(_:)``).
    public var pid: pid_t?
  }

  /// The longest path a socket address holds (`sun_path` less its terminating NUL).
  public static var maximumPathLength: Int { MemoryLayout.size(ofValue: sockaddr_un().sun_path) - 1 }

  /// A new socket listening at `path` whose file has `mode`, non-blocking and closed on `exec`; -1
  /// with `errno` set (`ENAMETOOLONG` for a path over ``maximumPathLength``, `EADDRINUSE` when
  /// something is at the path).
  ///
  /// The file's mode is set with `chmod` between `bind` and `listen`: until `listen`, a `connect`
  /// is refused, so no one connects through a wider mode. The corresponding C functions are `socket`,
  /// `bind`, `chmod` and `listen` (`<sys/socket.h>`, `<sys/stat.h>`).
  public static func listen(at path: String, mode: mode_t, backlog: CInt = 16) -> CInt {
    let fd = UnixSocket.open(datagram: false)
    guard fd >= 0 else { return -1 }
    let bound = withAddress(path) { address, length in bind(fd, address, length) }
    guard bound == 0, chmod(path, mode) == 0, setNonBlocking(fd), cListen(fd, backlog) == 0 else {
      let saved = errno
      if bound == 0 { unlink(path) }
      _ = close(fd)
      errno = saved
      return -1
    }
    return fd
  }

  /// A socket connected to the one listening at `path` (blocking, closed on `exec`); -1 with `errno`
  /// set (`ENOENT`: nothing there; `ECONNREFUSED`: a socket file no process listens on; `EACCES`:
  /// the file's mode refuses this user).
  ///
  /// The corresponding C functions are `socket` and `connect` (`<sys/socket.h>`).
  public static func connect(to path: String) -> CInt {
    let fd = UnixSocket.open(datagram: false)
    guard fd >= 0 else { return -1 }
    let connected = withAddress(path) { address, length in
      Syscall.retryingInterrupts { cConnect(fd, address, length) }
    }
    guard connected == 0 else {
      let saved = errno
      _ = close(fd)
      errno = saved
      return -1
    }
    return fd
  }

  /// Accepts a waiting connection as a non-blocking descriptor closed on `exec`; -1 with `errno` set
  /// (`EAGAIN` when none waits).
  ///
  /// glibc, Bionic and musl have `accept4(fd, nil, nil, SOCK_CLOEXEC | SOCK_NONBLOCK)`
  /// (`<sys/socket.h>`), which the Glibc module leaves out (a GNU extension): it is looked up at run
  /// time. Darwin has none: `accept`, then `fcntl` (`<fcntl.h>`) for both flags and `SO_NOSIGPIPE`,
  /// as a new socket gets them.
  public static func accept(_ fd: CInt) -> CInt {
    #if !canImport(Darwin)
      typealias Accept4 =
        @convention(c) (CInt, UnsafeMutablePointer<sockaddr>?, UnsafeMutablePointer<socklen_t>?, CInt)
        -> CInt
      if let symbol = DynamicSymbol.address(of: "accept4") {
        let flags = O_CLOEXEC | O_NONBLOCK  // SOCK_CLOEXEC and SOCK_NONBLOCK have these values on Linux
        return Syscall.retryingInterrupts { unsafeBitCast(symbol, to: Accept4.self)(fd, nil, nil, flags) }
      }
    #endif
    let accepted = Syscall.retryingInterrupts { cAccept(fd) }
    guard accepted >= 0 else { return -1 }
    guard fcntl(accepted, F_SETFD, FD_CLOEXEC) == 0, setNonBlocking(accepted),
      UnixSocket.noSignalOnPipe(accepted)
    else {
      let saved = errno
      _ = close(accepted)
      errno = saved
      return -1
    }
    return accepted
  }

  /// Who is connected at the other end of `fd`, or `nil` (with `errno` set) when it cannot be told.
  ///
  /// Linux: `getsockopt(SOL_SOCKET, SO_PEERCRED)` fills a `struct ucred { pid_t pid; uid_t uid; gid_t
  /// gid; }` (`<sys/socket.h>`, under `_GNU_SOURCE`, so the Glibc module does not import it; the layout
  /// is declared here). Darwin: `getpeereid` (`<unistd.h>`, the `LOCAL_PEERCRED` option underneath),
  /// which tells no pid. The Darwin branch is written from its headers and not compiled here.
  public static func peerCredentials(_ fd: CInt) -> PeerCredentials? {
    #if canImport(Darwin)
      var uid: uid_t = 0
      var gid: gid_t = 0
      guard getpeereid(fd, &uid, &gid) == 0 else { return nil }
      return PeerCredentials(uid: uid, pid: nil)
    #else
      var credentials = LinuxCredentials()
      var length = socklen_t(MemoryLayout<LinuxCredentials>.size)
      guard getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &credentials, &length) == 0 else { return nil }
      return PeerCredentials(uid: credentials.uid, pid: credentials.pid)
    #endif
  }

  /// Sends up to `count` bytes without blocking and without `SIGPIPE` (a peer that went away is
  /// `EPIPE`); the count sent, -1 with `errno` set (`EAGAIN`: the peer's buffer is full).
  ///
  /// The corresponding C function is `send` (`<sys/socket.h>`), with the flags of
  /// ``LocalDatagramSocket/nonBlockingSendFlags``.
  public static func send(_ fd: CInt, _ buffer: UnsafeRawPointer?, _ count: Int) -> Int {
    Syscall.retryingInterrupts { cSend(fd, buffer, count, LocalDatagramSocket.nonBlockingSendFlags) }
  }

  /// Stops sending on `fd` (`shutdown(SHUT_WR)`, `<sys/socket.h>`): the peer reads the end of the data.
  public static func finishSending(_ fd: CInt) {
    _ = shutdown(fd, CInt(SHUT_WR))
  }

  private static func setNonBlocking(_ fd: CInt) -> Bool {
    let flags = fcntl(fd, F_GETFL)
    return flags >= 0 && fcntl(fd, F_SETFL, flags | O_NONBLOCK) == 0
  }

  /// Calls `body` with `path` as a `sockaddr_un` (Darwin's has a length byte first, `sun_len`); -1
  /// with `ENAMETOOLONG` when the path does not fit.
  private static func withAddress(
    _ path: String, _ body: (UnsafePointer<sockaddr>, socklen_t) -> CInt
  ) -> CInt {
    var address = sockaddr_un()
    let bytes = Array(path.utf8)
    guard bytes.count <= maximumPathLength, !bytes.contains(0) else {
      errno = ENAMETOOLONG
      return -1
    }
    address.sun_family = sa_family_t(AF_UNIX)
    #if canImport(Darwin)
      address.sun_len = UInt8(MemoryLayout<sockaddr_un>.size)
    #endif
    withUnsafeMutableBytes(of: &address.sun_path) { raw in
      for (index, byte) in bytes.enumerated() { raw[index] = byte }
    }
    return withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        body($0, socklen_t(MemoryLayout<sockaddr_un>.size))
      }
    }
  }
}

/// Linux's `struct ucred` (`<bits/socket.h>`), which the Glibc module does not import.
private struct LinuxCredentials {
  var pid: pid_t = 0
  var uid: uid_t = 0
  var gid: gid_t = 0
}

// At file scope the C functions are not shadowed by `LocalStreamSocket`'s members.
private func cListen(_ fd: CInt, _ backlog: CInt) -> CInt { listen(fd, backlog) }
private func cConnect(_ fd: CInt, _ address: UnsafePointer<sockaddr>, _ length: socklen_t) -> CInt {
  connect(fd, address, length)
}
private func cAccept(_ fd: CInt) -> CInt { accept(fd, nil, nil) }
private func cSend(_ fd: CInt, _ buffer: UnsafeRawPointer?, _ count: Int, _ flags: CInt) -> Int {
  send(fd, buffer, count, flags)
}
