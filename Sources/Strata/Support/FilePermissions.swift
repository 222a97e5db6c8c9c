import StrataPlatform

/// Modes in messages (the checks before reading are ``FileTrust``'s).
enum FilePermissions {
  /// The mode of a file when its group or others may read it, else `nil`.
  static func readableByOthers(_ resolvedPath: String) -> mode_t? {
    var info = stat()
    guard stat(resolvedPath, &info) == 0 else { return nil }
    let mode = info.st_mode & 0o7777
    return mode & 0o044 != 0 ? mode : nil
  }

  /// `0644`: a mode as `chmod` takes it, at least four digits.
  static func octal(_ mode: mode_t) -> String {
    let digits = String(mode, radix: 8)
    return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
  }

  /// Why this process may not open `resolvedPath` (`open` failed with `EACCES`), and the fix, as the
  /// trust checks say it: the first directory on the path it cannot search, else the file it cannot
  /// read, with its owner and mode and this process's uid.
  ///
  /// `this process runs as uid 1000 (gid 1000); the file is owned by uid 0, group 0, mode 0600; fix it
  /// with: chgrp 1000 /etc/svc/svc.ini && chmod g+r /etc/svc/svc.ini, or run as uid 0`
  static func accessDenied(_ resolvedPath: String) -> String {
    let who = "this process runs as uid \(geteuid()) (gid \(getegid()))"
    var directory = resolvedPath.hasPrefix("/") ? "" : "."
    for name in resolvedPath.split(separator: "/").dropLast() {
      directory += "/" + name
      // AT_EACCESS: the effective ids, those `open` used.
      guard faccessat(AT_FDCWD, directory, X_OK, AT_EACCESS) != 0, errno == EACCES else { continue }
      return explain(who, directory, permission: "x", isOnTheWay: true) ?? who
    }
    return explain(who, resolvedPath, permission: "r", isOnTheWay: false) ?? who
  }

  /// `WHO; the file is owned by …, mode …; fix it with: …` for the entry at `path`, which lacks
  /// `permission` (`r` or `x`) for this process (`isOnTheWay`: a directory above the entry opened);
  /// `nil` when it cannot be described.
  private static func explain(_ who: String, _ path: String, permission: String, isOnTheWay: Bool) -> String?
  {
    var info = stat()
    guard stat(path, &info) == 0 else { return nil }
    let uid = geteuid()
    // The narrowest grant: to the owner when this process is it, else to a group it is in.
    let fix =
      info.st_uid == uid
      ? "chmod u+\(permission) \(path)"
      : isMember(of: info.st_gid)
        ? "chmod g+\(permission) \(path)" : "chgrp \(getegid()) \(path) && chmod g+\(permission) \(path)"
    let what =
      isOnTheWay
      ? "it cannot search the directory \(path), which"
      : (info.st_mode & S_IFMT) == S_IFDIR ? "the directory" : "the file"
    return "\(who); \(what) is owned by uid \(info.st_uid), group \(info.st_gid), mode "
      + "\(octal(info.st_mode & 0o7777)); fix it with: \(fix), or run as uid \(info.st_uid)"
  }

  /// Whether this process's effective or supplementary groups include `group`.
  private static func isMember(of group: gid_t) -> Bool {
    if getegid() == group { return true }
    let count = getgroups(0, nil)
    guard count > 0 else { return false }
    var groups = [gid_t](repeating: 0, count: Int(count))
    let filled = getgroups(count, &groups)
    return filled > 0 && groups.prefix(Int(filled)).contains(group)
  }
}
