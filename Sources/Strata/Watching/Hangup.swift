import Glibc

/// `SIGHUP` as a readable pipe, so that the watcher's poll thread can notice it (a signal handler may
/// only do async-signal-safe things, such as one `write`).
enum Hangup {
  /// The pipe: the handler writes to `[1]`; watchers poll `[0]`.
  nonisolated(unsafe) static var pipeFDs: [Int32] = [-1, -1]
  private static let installed: Bool = {
    var fds: [Int32] = [-1, -1]
    guard pipe(&fds) == 0 else { return false }
    for fd in fds {
      _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
      _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
    }
    pipeFDs = fds
    signal(SIGHUP) { _ in
      var byte: UInt8 = 1
      _ = write(Hangup.pipeFDs[1], &byte, 1)
    }
    return true
  }()

  /// Installs the handler once; returns the descriptor to poll, or `nil`.
  static func readDescriptor() -> Int32? {
    installed ? pipeFDs[0] : nil
  }
}
