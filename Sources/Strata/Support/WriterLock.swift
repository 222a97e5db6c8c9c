import StrataPlatform

/// Serializes writers of one directory across processes: an advisory `flock` on the directory, held from
/// the read of a file to the rename of its replacement, as git holds `index.lock` across its
/// read-modify-write. Two processes that edit the same file then never lose each other's update.
///
/// The lock is on the directory itself, so nothing is left behind; the kernel releases it when its
/// holder exits, even by `SIGKILL`. Locks taken through two different opens conflict even within one
/// process, so two stores of one program are serialized as well.
enum WriterLock {
  /// How long a writer waits for another one before it gives up.
  static let defaultTimeout: Duration = .seconds(10)

  /// Runs `body` holding the writers' lock of `directory`.
  /// - Throws: `writeFailed` when the lock is not free within `timeout`, naming `reportedAs`; or what
  ///   `body` throws.
  static func withLock<T>(
    directory: String, reportedAs: String, timeout: Duration = defaultTimeout,
    _ body: () throws(StrataError) -> T
  ) throws(StrataError) -> T {
    let fd = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    guard fd >= 0 else {
      throw StrataError(
        .writeFailed, "cannot open the directory to lock it: \(FileReader.describe(errno: errno))",
        path: reportedAs)
    }
    defer { close(fd) }
    let clock = ContinuousClock()
    let deadline = clock.now + timeout
    var pause: UInt32 = 200  // microseconds, doubling to 20 ms
    while flock(fd, LOCK_EX | LOCK_NB) != 0 {
      let code = errno
      if code == EINTR { continue }
      guard code == EWOULDBLOCK else {
        throw StrataError(.writeFailed, "cannot lock: \(FileReader.describe(errno: code))", path: reportedAs)
      }
      guard clock.now < deadline else {
        throw StrataError(
          .writeFailed,
          "another process has been writing in this directory for over \(timeout); nothing was written",
          path: reportedAs)
      }
      usleep(pause)
      pause = min(pause * 2, 20_000)
    }
    defer { _ = flock(fd, LOCK_UN) }
    return try body()
  }
}
