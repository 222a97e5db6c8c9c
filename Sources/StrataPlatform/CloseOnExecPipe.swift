/// A pipe whose two ends are closed on `exec`, so that no child spawned meanwhile by another thread
/// inherits them.
package enum CloseOnExecPipe {
  /// Opens a pipe into `fds` (`[0]` reads, `[1]` writes); 0, or -1 with `errno` set.
  ///
  /// glibc, Bionic and musl have `pipe2(fds, O_CLOEXEC)` (`<unistd.h>`), atomic; the Glibc module does
  /// not import it (a GNU extension), so it is looked up at run time. Darwin has no `pipe2`: `pipe`
  /// (`<unistd.h>`), then `fcntl(F_SETFD, FD_CLOEXEC)` (`<fcntl.h>`) on each end, which a fork in
  /// another thread between the two calls can still inherit.
  package static func open(_ fds: UnsafeMutablePointer<CInt>) -> CInt {
    #if !canImport(Darwin)
      typealias Pipe2 = @convention(c) (UnsafeMutablePointer<CInt>, CInt) -> CInt
      if let symbol = DynamicSymbol.address(of: "pipe2") {
        return unsafeBitCast(symbol, to: Pipe2.self)(fds, O_CLOEXEC)
      }
    #endif
    guard pipe(fds) == 0 else { return -1 }
    for fd in [fds[0], fds[1]] where fcntl(fd, F_SETFD, FD_CLOEXEC) != 0 {
      let saved = errno
      _ = close(fds[0])
      _ = close(fds[1])
      errno = saved
      return -1
    }
    return 0
  }
}
