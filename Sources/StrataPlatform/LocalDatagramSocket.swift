/// A Unix-domain datagram socket (the systemd notification protocol's), opened so that it is closed
/// on `exec` and never raises `SIGPIPE`, which each platform asks for in its own way.
public enum LocalDatagramSocket {
  /// A new `AF_UNIX` datagram socket with close-on-exec set (and, on Darwin, `SO_NOSIGPIPE`); -1 with
  /// `errno` set. How each platform spells it: `UnixSocket.open(datagram:)`.
  public static func open() -> CInt {
    UnixSocket.open(datagram: true)
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
