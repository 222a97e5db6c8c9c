/// Whether a file system is mounted read-only, from `statvfs` (`<sys/statvfs.h>`, POSIX.1).
public enum ReadOnlyMount {
  /// Whether the file system holding `path` (links followed) is mounted read-only: `ST_RDONLY` in
  /// `statvfs`'s `f_flag`; `false` when `statvfs` fails, so that a path it cannot describe is judged by
  /// its mode alone.
  ///
  /// On Linux the flag also reflects a read-only bind mount of a writable file system (the kernel
  /// reports the mount's flags with the superblock's), which is how a container sees a Kubernetes
  /// ConfigMap or Secret volume.
  ///
  /// The function and the structure are `statvfs` on glibc, musl, Bionic and Darwin, and `f_flag` is an
  /// `unsigned long` on each; only `ST_RDONLY` differs in type (an enumerator on glibc, a macro
  /// elsewhere), hence the conversion.
  public static func contains(_ path: String) -> Bool {
    var info = statvfs()
    guard statvfs(path, &info) == 0 else { return false }
    return info.f_flag & UInt(ST_RDONLY) != 0
  }
}
