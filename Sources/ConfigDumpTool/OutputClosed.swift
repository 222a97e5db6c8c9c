import StrataPlatform

/// Ends the process as soon as standard output has no reader left: `config-dump --watch | head -1`
/// must not keep running after `head` exits, even while nothing changes (so nothing is written that
/// could fail with `EPIPE`). A thread waits in `poll` for the error or hang-up that the kernel reports
/// on the write end of a pipe whose reader closed, or on a terminal that went away.
enum OutputClosed {
  static func exitWhenClosed() {
    _ = DetachedThread.start {
      var output = pollfd(fd: STDOUT_FILENO, events: 0, revents: 0)
      while true {
        let result = Syscall.poll(&output, 1, -1)
        if result > 0 && output.revents & Int16(POLLERR | POLLHUP | POLLNVAL) != 0 { _exit(0) }
        if result < 0 { return }
      }
    }
  }
}
