/// What the Unix-domain sockets of this folder share: opening one closed on `exec` and never raising
/// `SIGPIPE`, which each platform asks for in its own way.
enum UnixSocket {
  /// A new `AF_UNIX` socket (a datagram one, or a stream one) with close-on-exec set; -1 with `errno`
  /// set.
  ///
  /// glibc, Bionic and musl take `SOCK_CLOEXEC` in `socket`'s type (`<sys/socket.h>`; glibc imports
  /// `SOCK_DGRAM`, `SOCK_STREAM` and `SOCK_CLOEXEC` as an enum, hence `rawValue`). Darwin has no
  /// `SOCK_CLOEXEC`: `fcntl(F_SETFD, FD_CLOEXEC)` (`<fcntl.h>`) right after `socket`, and, having no
  /// `MSG_NOSIGNAL` either, `SO_NOSIGPIPE` on the socket (``noSignalOnPipe(_:)``).
  static func open(datagram: Bool) -> CInt {
    #if canImport(Darwin)
      let fd = socket(AF_UNIX, datagram ? SOCK_DGRAM : SOCK_STREAM, 0)
      guard fd >= 0 else { return -1 }
      guard fcntl(fd, F_SETFD, FD_CLOEXEC) == 0, noSignalOnPipe(fd) else {
        let saved = errno
        _ = close(fd)
        errno = saved
        return -1
      }
      return fd
    #elseif canImport(Glibc)
      let type = datagram ? SOCK_DGRAM : SOCK_STREAM
      return socket(AF_UNIX, CInt(type.rawValue) | CInt(SOCK_CLOEXEC.rawValue), 0)
    #else
      return socket(AF_UNIX, CInt(datagram ? SOCK_DGRAM : SOCK_STREAM) | CInt(SOCK_CLOEXEC), 0)
    #endif
  }

  /// Sets `setsockopt(SOL_SOCKET, SO_NOSIGPIPE)` (`<sys/socket.h>`) on Darwin, which has no
  /// `MSG_NOSIGNAL`; elsewhere the send flags do it (``LocalDatagramSocket/nonBlockingSendFlags``).
  static func noSignalOnPipe(_ fd: CInt) -> Bool {
    #if canImport(Darwin)
      var one: CInt = 1
      return setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &one, socklen_t(MemoryLayout<CInt>.size)) == 0
    #else
      return true
    #endif
  }
}
