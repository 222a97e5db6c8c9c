/// The system calls Strata makes through the platform layer, each retried when a signal interrupts it
/// (`EINTR`), in one place (``retryingInterrupts(_:)``), as swift-system's `Syscalls.swift` does.
///
/// Callers inside a type with a `read` or `write` method of its own call these instead of spelling the
/// C function with its module's name (`Glibc.read`), which differs per platform.
public enum Syscall {
  /// Runs `call` again while it fails with `EINTR`; `errno` is read only when it failed (returned -1).
  @inlinable
  public static func retryingInterrupts<Result: FixedWidthInteger>(_ call: () -> Result) -> Result {
    while true {
      let result = call()
      if result == -1 && errno == EINTR { continue }
      return result
    }
  }

  /// Reads up to `count` bytes into `buffer`; the count read, 0 at the end, -1 with `errno` set.
  ///
  /// The corresponding C function is `read` (`<unistd.h>` on every platform).
  public static func read(_ fd: CInt, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
    retryingInterrupts { cRead(fd, buffer, count) }
  }

  /// Writes up to `count` bytes from `buffer`; the count written, -1 with `errno` set.
  ///
  /// The corresponding C function is `write` (`<unistd.h>` on every platform).
  public static func write(_ fd: CInt, _ buffer: UnsafeRawPointer?, _ count: Int) -> Int {
    retryingInterrupts { cWrite(fd, buffer, count) }
  }

  /// Writes all of `bytes`, as many `write` calls as it takes; `false` (with `errno` set) when one
  /// fails or writes nothing.
  @discardableResult
  public static func writeAll(_ fd: CInt, _ bytes: UnsafeRawBufferPointer) -> Bool {
    var offset = 0
    while offset < bytes.count {
      let count = write(fd, bytes.baseAddress! + offset, bytes.count - offset)
      guard count > 0 else { return false }
      offset += count
    }
    return true
  }

  /// Writes all of `text`'s UTF-8 bytes (see ``writeAll(_:_:)-(_,UnsafeRawBufferPointer)``).
  @discardableResult
  public static func writeAll(_ fd: CInt, _ text: String) -> Bool {
    var text = text
    return text.withUTF8 { writeAll(fd, UnsafeRawBufferPointer($0)) }
  }

  /// Waits for events on `fds` for up to `timeout` milliseconds (-1: no limit); the count of ready
  /// descriptors, 0 on timeout, -1 with `errno` set. An interrupted wait starts again with the whole
  /// timeout (callers recompute their deadline on the next turn).
  ///
  /// The corresponding C function is `poll` (`<poll.h>` on every platform).
  public static func poll(_ fds: UnsafeMutablePointer<pollfd>, _ count: Int, _ timeout: CInt) -> CInt {
    retryingInterrupts { cPoll(fds, nfds_t(count), timeout) }
  }

  /// Sends `signal` to process `pid`; 0, or -1 with `errno` set.
  ///
  /// The corresponding C function is `kill` (`<signal.h>` on every platform).
  @discardableResult
  public static func kill(_ pid: pid_t, _ signal: CInt) -> CInt { cKill(pid, signal) }

  /// Closes `fd`; an interrupted `close` is not retried (the descriptor is released either way on
  /// Linux and Darwin, and a retry could close one another thread just opened).
  ///
  /// The corresponding C function is `close` (`<unistd.h>` on every platform).
  @discardableResult
  public static func close(_ fd: CInt) -> CInt { cClose(fd) }
}

// At file scope the C functions are not shadowed by `Syscall`'s members, so no module name is needed.
private func cRead(_ fd: CInt, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
  read(fd, buffer, count)
}
private func cWrite(_ fd: CInt, _ buffer: UnsafeRawPointer?, _ count: Int) -> Int {
  write(fd, buffer, count)
}
private func cPoll(_ fds: UnsafeMutablePointer<pollfd>, _ count: nfds_t, _ timeout: CInt) -> CInt {
  poll(fds, count, timeout)
}
private func cClose(_ fd: CInt) -> CInt { close(fd) }
private func cKill(_ pid: pid_t, _ signal: CInt) -> CInt { kill(pid, signal) }
