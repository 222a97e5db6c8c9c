import StrataPlatform

/// `SIGHUP` as a readable pipe, so that the watcher's poll thread can notice it (a signal handler may
/// only do async-signal-safe things, such as one `write`). A hangup that arrives before any watcher
/// polls the pipe stays in it, queued, and is served when one starts.
enum Hangup {
  /// The pipe's read end, once the handler is installed; `nil` when the pipe or the handler could not
  /// be made. The handler (C code, see ``SignalHandler/installWakingPipe(_:writingTo:)``) writes to the
  /// other end and reads no Swift state.
  private static let readEnd: Int32? = {
    guard let fds = nonBlockingPipe() else { return nil }
    // The handler also unblocks the signal: a parent may have blocked it (it is inherited through exec).
    guard SignalHandler.installWakingPipe(SIGHUP, writingTo: fds.write) else {
      close(fds.read)
      close(fds.write)
      return nil
    }
    return fds.read
  }()

  /// Installs the handler once; returns the descriptor to poll, or `nil`.
  static func readDescriptor() -> Int32? {
    readEnd
  }
}

/// A pipe whose ends are non-blocking and close-on-exec, or `nil` when `pipe` fails (`EMFILE`). The
/// corresponding C functions are `pipe` and `fcntl` (`<unistd.h>`, `<fcntl.h>`; `pipe2` is not on
/// Darwin).
func nonBlockingPipe() -> (read: Int32, write: Int32)? {
  var fds: [Int32] = [-1, -1]
  guard pipe(&fds) == 0 else { return nil }
  for fd in fds {
    _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
    _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
  }
  return (fds[0], fds[1])
}
