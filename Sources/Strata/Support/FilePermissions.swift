import Glibc

/// Ownership and mode checks, in the spirit of sshd's `StrictModes`.
enum FilePermissions {
  /// Why a system file must not be trusted: writable by everyone, or owned by someone other than root
  /// or this process's user. `nil` when it is fine (or cannot be stat'ed; reading reports that).
  static func problem(withSystemFile resolvedPath: String, reportedAs path: String) -> StrataError? {
    var info = stat()
    guard stat(resolvedPath, &info) == 0 else { return nil }
    // Only files and directories: reading refuses anything else as "not a regular file", which is the
    // real problem with a link to /dev/zero (and `chmod o-w` through that link would change the device).
    let type = info.st_mode & S_IFMT
    guard type == S_IFREG || type == S_IFDIR else { return nil }
    let mode = info.st_mode & 0o7777
    let what = (info.st_mode & S_IFMT) == S_IFDIR ? "directory" : "file"
    if mode & 0o002 != 0 {
      return StrataError(
        .insecurePermissions,
        "refusing a \(what) anyone can write (mode \(octal(mode))); fix it with: chmod o-w \(path)",
        path: path)
    }
    let owner = info.st_uid
    if owner != 0 && owner != geteuid() {
      return StrataError(
        .insecurePermissions,
        "refusing a \(what) owned by uid \(owner), neither root nor this process (uid \(geteuid())); fix it "
          + "with: chown root \(path)", path: path)
    }
    return nil
  }

  /// Why a user-layer file must not be read: it belongs to someone other than this process's user or
  /// root. `nil` when it is fine (or cannot be stat'ed; reading reports that).
  static func problem(withUserFile resolvedPath: String, reportedAs path: String) -> StrataError? {
    var info = stat()
    guard stat(resolvedPath, &info) == 0, info.st_uid != geteuid(), info.st_uid != 0 else { return nil }
    return StrataError(
      .insecurePermissions,
      "refusing a user file owned by uid \(info.st_uid), not this process's user (uid \(geteuid())): it may "
        + "be another user's (HOME kept by sudo?); run as its owner, or fix it with: chown \(geteuid()) \(path)",
      path: path)
  }

  /// The mode of a file when its group or others may read it, else `nil`.
  static func readableByOthers(_ resolvedPath: String) -> mode_t? {
    var info = stat()
    guard stat(resolvedPath, &info) == 0 else { return nil }
    let mode = info.st_mode & 0o7777
    return mode & 0o044 != 0 ? mode : nil
  }

  static func octal(_ mode: mode_t) -> String { "0" + String(mode, radix: 8) }
}
