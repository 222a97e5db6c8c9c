extension stat {
  /// When the file's data last changed (`st_mtim`).
  ///
  /// Darwin names the field `st_mtimespec` (`<sys/stat.h>`); glibc, Bionic and musl name it `st_mtim`
  /// (`<sys/stat.h>`, POSIX.1-2008).
  @inlinable
  public var modificationTime: timespec {
    #if canImport(Darwin)
      st_mtimespec
    #else
      st_mtim
    #endif
  }

  /// When the file's inode last changed: data, owner, mode or links (`st_ctim`).
  ///
  /// Darwin names the field `st_ctimespec` (`<sys/stat.h>`); elsewhere it is `st_ctim`.
  @inlinable
  public var statusChangeTime: timespec {
    #if canImport(Darwin)
      st_ctimespec
    #else
      st_ctim
    #endif
  }
}

extension timespec {
  /// The time in nanoseconds since the epoch.
  @inlinable
  public var nanoseconds: Int64 { Int64(tv_sec) * 1_000_000_000 + Int64(tv_nsec) }
}
