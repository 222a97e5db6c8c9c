import StrataPlatform

/// `SIGHUP` as a readable pipe, so that the watcher's poll thread can notice it (a signal handler may
/// only do async-signal-safe things, such as one `write`). A hangup that arrives before any watcher
/// polls the pipe stays in it, queued, and is served when one starts.
enum Hangup {
  /// The pipe: the handler writes to `[1]`; watchers poll `[0]`.
  // nonisolated(unsafe): written once, in `installed`'s initializer (which Swift runs once, under its
  // own lock), before the handler that reads it is installed; only read afterwards.
  nonisolated(unsafe) static var pipeFDs: [Int32] = [-1, -1]
  private static let installed: Bool = {
    guard let fds = nonBlockingPipe() else { return false }
    pipeFDs = [fds.read, fds.write]
    // The handler also unblocks the signal: a parent may have blocked it (it is inherited through exec).
    return SignalHandler.install(SIGHUP) { _ in
      let saved = errno
      var byte: UInt8 = 1
      _ = write(Hangup.pipeFDs[1], &byte, 1)
      errno = saved
    }
  }()

  /// Installs the handler once; returns the descriptor to poll, or `nil`.
  static func readDescriptor() -> Int32? {
    installed ? pipeFDs[0] : nil
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
