import CStrataSignals

/// Process-wide signal handling, with the one field of `struct sigaction` that every C library names
/// differently.
public enum SignalHandler {
  /// The C function a handler is: it may do only async-signal-safe things (one `write`, say).
  public typealias Function = @convention(c) (CInt) -> Void

  /// Installs `handler` for `signal` with an empty mask, then unblocks `signal` on the calling thread
  /// (a parent may have blocked it; the mask is inherited through `exec`).
  /// - Parameter restartingCalls: whether a system call the signal interrupts restarts by itself
  ///   (`SA_RESTART`) rather than failing with `EINTR`.
  /// - Returns: `false` when `sigaction` failed (an invalid signal, or `SIGKILL`/`SIGSTOP`).
  ///
  /// The corresponding C functions are `sigaction`, `sigemptyset`, `sigaddset` (`<signal.h>`) and
  /// `pthread_sigmask` (`<signal.h>`), on every platform. The handler's field is
  /// `__sigaction_u.__sa_handler` on Darwin (`<sys/signal.h>`), `__sigaction_handler.sa_handler` on
  /// glibc (`<bits/sigaction.h>`), `__sa_handler.sa_handler` on musl (`<signal.h>`) and `sa_handler` on
  /// Bionic (an anonymous union in `<bits/signal_types.h>`).
  public static func install(_ signal: CInt, restartingCalls: Bool = true, _ handler: Function) -> Bool {
    var action = sigaction()
    #if canImport(Darwin)
      action.__sigaction_u.__sa_handler = handler
    #elseif canImport(Glibc)
      action.__sigaction_handler.sa_handler = handler
    #elseif canImport(Musl)
      action.__sa_handler.sa_handler = handler
    #else
      action.sa_handler = handler
    #endif
    action.sa_flags = restartingCalls ? SA_RESTART : 0
    sigemptyset(&action.sa_mask)
    guard sigaction(signal, &action, nil) == 0 else { return false }
    unblock(signal)
    return true
  }

  /// Unblocks `signal` on the calling thread.
  ///
  /// The corresponding C function is `pthread_sigmask` (`<signal.h>`, every platform).
  public static func unblock(_ signal: CInt) {
    var set = sigset_t()
    sigemptyset(&set)
    sigaddset(&set, signal)
    _ = pthread_sigmask(SIG_UNBLOCK, &set, nil)
  }

  /// Installs, for `signal`, a handler that writes one byte to `fd` (the write end of a non-blocking
  /// pipe that a thread polls): the handler is C code that reads `fd` from a C atomic and calls only
  /// `write`, so it is async-signal-safe. One such descriptor serves every signal installed this way.
  /// - Returns: `false` when `sigaction` failed.
  public static func installWakingPipe(_ signal: CInt, writingTo fd: CInt) -> Bool {
    strata_signal_wake_set(fd)
    return install(signal, strata_signal_wake_handler)
  }
}
