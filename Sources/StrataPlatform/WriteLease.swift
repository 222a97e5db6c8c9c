/// Whether anyone has a file open for writing, asked of the kernel with a read lease (Linux's
/// `fcntl(F_SETLEASE, F_RDLCK)`, which fails with `EAGAIN` while any descriptor of the file is open
/// for writing). While the lease is held, a process that opens the file for writing waits until it is
/// released (at most `/proc/sys/fs/lease-break-time`), so a reader that holds it across one read
/// reads a file no writer is in the middle of.
///
/// A lease needs the file's owner or `CAP_LEASE`, a regular file and a file system that grants them;
/// anything else answers ``Probe/unknown``. The lease's break notice (sent when a writer comes) is
/// `SIGURG`, whose default action is to ignore it, instead of `SIGIO`, whose default action ends the
/// process. Elsewhere than Linux every answer is ``Probe/unknown``.
public enum WriteLease {
  /// What the kernel said.
  public enum Probe: Sendable, Equatable {
    /// No descriptor of the file is open for writing; the lease is held until ``release(_:)``.
    case held
    /// Some process has the file open for writing now.
    case beingWritten
    /// The kernel cannot say (not the owner, no leases on this file system, not Linux).
    case unknown
  }

  /// Takes a read lease on `fd` (opened read-only).
  public static func acquire(_ fd: Int32) -> Probe {
    #if os(Linux)
      // F_SETSIG, F_SETLEASE and F_RDLCK (<fcntl.h>, _GNU_SOURCE), which Swift's Glibc does not import.
      _ = fcntl(fd, 10, SIGURG)
      if fcntl(fd, 1024, Int32(0)) == 0 { return .held }
      return errno == EAGAIN ? .beingWritten : .unknown
    #else
      return .unknown
    #endif
  }

  /// Gives a lease of ``acquire(_:)`` back (`F_UNLCK`), so that writers waiting for it go on.
  public static func release(_ fd: Int32) {
    #if os(Linux)
      _ = fcntl(fd, 1024, Int32(2))
    #endif
  }
}
