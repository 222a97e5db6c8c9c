/// A Unix-domain datagram socket (the systemd notification protocol's), opened so that it is closed
/// on `exec` and never raises `SIGPIPE`, which each platform asks for in its own way.
public enum LocalDatagramSocket {
  /// A new `AF_UNIX` datagram socket with close-on-exec set; -1 with `errno` set.
  ///
  /// glibc, Bionic and musl take `SOCK_CLOEXEC` in `socket`'s type (`<sys/socket.h>`; glibc imports
  /// `SOCK_DGRAM` and `SOCK_CLOEXEC` as an enum, hence `rawValue`). Darwin has no `SOCK_CLOEXEC`:
  /// `fcntl(F_SETFD, FD_CLOEXEC)` (`<fcntl.h>`) right after `socket`, and, having no `MSG_NOSIGNAL`
  /// either, `setsockopt(SOL_SOCKET, SO_NOSIGPIPE)` (`<sys/socket.h>`) on the socket.
  public static func open() -> CInt {
    #if canImport(Darwin)
      let fd = socket(AF_UNIX, SOCK_DGRAM, 0)
      guard fd >= 0 else { return -1 }
      var one: CInt = 1
      guard fcntl(fd, F_SETFD, FD_CLOEXEC) == 0,
        setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &one, socklen_t(MemoryLayout<CInt>.size)) == 0
      else {
        let saved = errno
        _ = close(fd)
        errno = saved
        return -1
      }
      return fd
    #elseif canImport(Glibc)
      return socket(AF_UNIX, CInt(SOCK_DGRAM.rawValue) | CInt(SOCK_CLOEXEC.rawValue), 0)
    #else
      return socket(AF_UNIX, CInt(SOCK_DGRAM) | CInt(SOCK_CLOEXEC), 0)
    #endif
  }

  /// The `sendto` flags for a send that never blocks and never raises `SIGPIPE`: `MSG_DONTWAIT |
  /// MSG_NOSIGNAL` (`<sys/socket.h>`); on Darwin `MSG_DONTWAIT` alone (``open()`` set `SO_NOSIGPIPE`).
  public static var nonBlockingSendFlags: CInt {
    #if canImport(Darwin)
      CInt(MSG_DONTWAIT)
    #else
      CInt(MSG_DONTWAIT | MSG_NOSIGNAL)
    #endif
  }
}
