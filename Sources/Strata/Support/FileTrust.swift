import Glibc

/// What a layer requires of every file it reads (main files, drop-ins and their directory, INI
/// `!include` files and `!includedir` directories), checked before the file is read.
struct FileTrust: Sendable {
  /// sshd's `StrictModes`: the file, and every directory on its path from the layer's root down, may be
  /// changed only by root or this process's user (vendor and system layers).
  var requiresSafePermissions: Bool
  /// git's `safe.directory`: the file belongs to this process's user or root (the user layer).
  var requiresOwnFiles: Bool

  /// Why the file or directory at `path` must not be read, or `nil`. A path that does not exist passes:
  /// reading it reports that.
  /// - Parameters:
  ///   - path: the path as reported (before the root prefix).
  ///   - resolvePath: maps it to the disk; the walk up the directories stops at the resolved `/`.
  func problem(with path: String, resolvePath: (String) -> String) -> StrataError? {
    let resolved = resolvePath(path)
    if requiresSafePermissions,
      let problem = Self.pathProblem(resolved, reportedAs: path, resolvePath: resolvePath)
    {
      return problem
    }
    if requiresOwnFiles {
      var info = stat()
      if stat(resolved, &info) == 0, info.st_uid != geteuid(), info.st_uid != 0 {
        return StrataError(
          .insecurePermissions,
          "refusing a user file owned by uid \(info.st_uid), not this process's user (uid \(geteuid())): it "
            + "may be another user's (HOME kept by sudo?); run as its owner, or fix it with: chown \(geteuid()) "
            + "\(path)", path: path)
      }
    }
    return nil
  }

  /// Checks the file, then each directory above it up to the resolved root, then, when links lead
  /// elsewhere, each directory above the real path.
  private static func pathProblem(
    _ resolved: String, reportedAs path: String, resolvePath: (String) -> String
  )
    -> StrataError?
  {
    var info = stat()
    guard stat(resolved, &info) == 0 else { return nil }
    // Only files and directories: reading refuses anything else as "not a regular file", which is the
    // real problem with a link to /dev/zero (and `chmod o-w` through that link would change the device).
    let type = info.st_mode & S_IFMT
    guard type == S_IFREG || type == S_IFDIR else { return nil }
    let top = INIParseSession.normalize(absolute(resolvePath("/")))
    var disk = INIParseSession.normalize(absolute(resolved))
    var shown = INIParseSession.normalize(absolute(path))
    var isFirst = true
    while true {
      if let problem = entryProblem(disk, shown: shown, file: isFirst ? nil : path) { return problem }
      isFirst = false
      if disk == top || disk == "/" || shown == "/" { break }
      disk = INIParseSession.directory(of: disk)
      shown = INIParseSession.directory(of: shown)
    }
    // A link on the way leads to other directories, which must be as safe.
    guard let real = INIParseSession.realPath(resolved), real != INIParseSession.normalize(absolute(resolved))
    else { return nil }
    var directory = INIParseSession.directory(of: real)
    while true {
      if let problem = entryProblem(directory, shown: directory, file: path) { return problem }
      if directory == "/" { return nil }
      directory = INIParseSession.directory(of: directory)
    }
  }

  /// Why one entry on the way must not be trusted: a link another user owns (the kernel's
  /// `protected_symlinks`), or what it points to is writable by others.
  /// - Parameters:
  ///   - disk: where the entry is.
  ///   - shown: the entry as messages show it.
  ///   - file: the file being checked when the entry is one of its directories, `nil` for the file.
  private static func entryProblem(_ disk: String, shown: String, file: String?) -> StrataError? {
    let euid = geteuid()
    var link = stat()
    guard lstat(disk, &link) == 0 else { return nil }
    func refuse(_ reason: String, fix: String) -> StrataError {
      let head = file == nil ? "refusing \(reason)" : "refusing it: \(shown), on its path, is \(reason)"
      return StrataError(.insecurePermissions, "\(head); fix it with: \(fix)", path: file ?? shown)
    }
    if (link.st_mode & S_IFMT) == S_IFLNK && link.st_uid != 0 && link.st_uid != euid {
      return refuse(
        "a symbolic link owned by uid \(link.st_uid), neither root nor this process (uid \(euid)), as the "
          + "kernel's protected_symlinks would", fix: "chown -h root \(shown)")
    }
    var info = stat()
    guard stat(disk, &info) == 0 else { return nil }
    let isDirectory = (info.st_mode & S_IFMT) == S_IFDIR
    let what = isDirectory ? "a directory" : "a file"
    let mode = info.st_mode & 0o7777
    if info.st_uid != 0 && info.st_uid != euid {
      return refuse(
        "\(what) owned by uid \(info.st_uid), neither root nor this process (uid \(euid))",
        fix: "chown root \(shown)")
    }
    // A world-writable directory with the sticky bit (/tmp) lets others add entries but not replace
    // ours; the owner checks above catch what they add.
    if mode & 0o002 != 0 && !(isDirectory && mode & S_ISVTX != 0) {
      return refuse(
        "\(what) anyone can write (mode \(FilePermissions.octal(mode)))", fix: "chmod o-w \(shown)")
    }
    if mode & 0o020 != 0 && info.st_gid != 0 && info.st_gid != getegid() {
      return refuse(
        "\(what) group \(info.st_gid) can write (mode \(FilePermissions.octal(mode))), neither root's group nor "
          + "this process's", fix: "chmod g-w \(shown)")
    }
    return nil
  }

  private static func absolute(_ path: String) -> String {
    path.hasPrefix("/") ? path : (INIParseSession.realPath(".") ?? "") + "/" + path
  }
}
