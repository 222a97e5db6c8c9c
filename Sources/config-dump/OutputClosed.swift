import Glibc

/// Ends the process as soon as standard output has no reader left: `config-dump --watch | head -1`
/// must not keep running after `head` exits, even while nothing changes (so nothing is written that
/// could fail with `EPIPE`). A thread waits in `poll` for the error or hang-up that the kernel reports
/// on the write end of a pipe whose reader closed, or on a terminal that went away.
enum OutputClosed {
  static func exitWhenClosed() {
    var thread = pthread_t()
    _ = pthread_create(
      &thread, nil,
      { _ in
        var output = pollfd(fd: STDOUT_FILENO, events: 0, revents: 0)
        while true {
          let result = poll(&output, 1, -1)
          if result < 0 && errno == EINTR { continue }
          if result > 0 && output.revents & Int16(POLLERR | POLLHUP | POLLNVAL) != 0 { _exit(0) }
          if result < 0 { return nil }
        }
      }, nil)
    pthread_detach(thread)
  }
}
