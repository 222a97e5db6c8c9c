import StrataPlatform

/// What a layer requires of every file it reads (main files, drop-ins and their directory, INI
/// `!include` files and `!includedir` directories), checked before the file is read.
struct FileTrust: Sendable {
  /// sshd's `StrictModes`: the file, and every directory on its path from the layer's root down, may be
  /// changed only by root or this process's user (vendor and system layers).
  var requiresSafePermissions: Bool
  /// git's `safe.directory`: the file belongs to this process's user or root (the user layer).
  var requiresOwnFiles: Bool

  /// What this load of the layer has already seen on disk, so that the directories its files share
  /// (`/etc/app` for the INI file, its drop-in directory and each drop-in) are looked at once per load;
  /// `nil`: every check looks at every entry.
  var seen: TrustMemo? = nil

  /// Why the file or directory at `path` must not be read, or `nil`. A path that does not exist passes:
  /// reading it reports that.
  /// - Parameters:
  ///   - path: the path as reported (before the root prefix).
  ///   - resolvePath: maps it to the disk; the walk up the directories stops at the resolved `/`.
  func problem(with path: String, resolvePath: (String) -> String) -> StrataError? {
    let resolved = resolvePath(path)
    let euid = geteuid()
    if requiresSafePermissions,
      let problem = pathProblem(resolved, reportedAs: path, resolvePath: resolvePath, euid: euid)
    {
      return problem
    }
    if requiresOwnFiles {
      var info = stat()
      if stat(resolved, &info) == 0, info.st_uid != euid, info.st_uid != 0 {
        return StrataError(
          .insecurePermissions,
          "refusing a user file owned by uid \(info.st_uid), not this process's user (uid \(euid)): it "
            + "may be another user's (HOME kept by sudo?); run as its owner, or fix it with: chown \(euid) "
            + "\(path)", path: path)
      }
    }
    return nil
  }

  /// Checks the file, then each directory above it up to the resolved root, then, when links lead
  /// elsewhere, each directory above the real path.
  private func pathProblem(
    _ resolved: String, reportedAs path: String, resolvePath: (String) -> String, euid: uid_t
  )
    -> StrataError?
  {
    var info = stat()
    guard stat(resolved, &info) == 0 else { return nil }
    // Only files and directories: reading refuses anything else as "not a regular file", which is the
    // real problem with a link to /dev/zero (and `chmod o-w` through that link would change the device).
    let type = info.st_mode & S_IFMT
    guard type == S_IFREG || type == S_IFDIR else { return nil }
    let top = normalizedPath(FileSystem.absolutePath(resolvePath("/")))
    let written = FileSystem.absolutePath(resolved)
    let lexical = normalizedPath(written)
    var disk = lexical
    var shown = normalizedPath(FileSystem.absolutePath(path))
    var isFirst = true
    // Whether every entry from the file up to `/` was seen by `lstat` and none is a link.
    var noLinks = true
    while true {
      switch entry(disk, shown: shown, file: isFirst ? nil : path, euid: euid) {
      case .unsafe(let problem): return problem
      case .missing, .safe(isLink: true): noLinks = false
      case .safe(isLink: false): break
      }
      isFirst = false
      // `.`: the path stayed relative (the current directory has no name); nothing is above it.
      if disk == top || disk == "/" || shown == "/" || disk == "." { break }
      disk = directoryPart(of: disk)
      shown = directoryPart(of: shown)
    }
    // Above the root prefix (`--root`) only whether each entry is a link matters, to skip `realpath`.
    while noLinks && disk != "/" && disk != "." {
      disk = directoryPart(of: disk)
      if isLink(disk) != false { noLinks = false }
    }
    // `realpath` resolves links and `..`; with neither on the way, it is the lexical path, and no other
    // directory is involved. `..` is resolved by the kernel after the links before it, so it needs
    // `realpath` even when no entry of the lexical path is a link.
    if noLinks && !hasParentComponent(written) { return nil }
    // A link on the way leads to other directories, which must be as safe.
    guard let real = FileSystem.realPath(resolved), real != lexical else { return nil }
    var directory = directoryPart(of: real)
    while true {
      if case .unsafe(let problem) = entry(directory, shown: directory, file: path, euid: euid) {
        return problem
      }
      if directory == "/" { return nil }
      directory = directoryPart(of: directory)
    }
  }

  /// What one entry on the way is, for the trust check.
  private enum Entry {
    /// `lstat` finds nothing there.
    case missing
    /// Nothing to refuse; `isLink`: it is a symbolic link.
    case safe(isLink: Bool)
    case unsafe(StrataError)
  }

  /// Whether the entry at `disk` is a symbolic link, or `nil` when `lstat` fails.
  private func isLink(_ disk: String) -> Bool? {
    if let known = seen?.isLink(disk) { return known }
    var link = stat()
    guard lstat(disk, &link) == 0 else { return nil }
    let isLink = (link.st_mode & S_IFMT) == S_IFLNK
    seen?.record(disk, isLink: isLink, isSafe: false)
    return isLink
  }

  /// One entry on the way, checked once per load when ``seen`` is set: only a pass is remembered (a
  /// refusal is looked at again, for its message).
  private func entry(_ disk: String, shown: String, file: String?, euid: uid_t) -> Entry {
    if let isLink = seen?.safeEntry(disk) { return .safe(isLink: isLink) }
    var link = stat()
    guard lstat(disk, &link) == 0 else { return .missing }
    let isLink = (link.st_mode & S_IFMT) == S_IFLNK
    if let problem = Self.entryProblem(disk, shown: shown, file: file, link: link, euid: euid) {
      return .unsafe(problem)
    }
    seen?.record(disk, isLink: isLink, isSafe: true)
    return .safe(isLink: isLink)
  }

  /// Why one entry on the way must not be trusted: a link another user owns (the kernel's
  /// `protected_symlinks`), or what it points to is owned by another user, or writable by others on a
  /// writable mount.
  ///
  /// A mode that lets others (or another group) write is harmless on a read-only mount: nobody can
  /// write through it, whatever the mode says, and only root can remount it. A Kubernetes ConfigMap or
  /// Secret is such a mount, whose directory the kubelet makes with mode 0777, which nobody in the pod
  /// can change. (A read-only bind mount leaves its source as writable as the mode says, to whoever can
  /// reach it; the kubelet's source is under `/var/lib/kubelet`, which only root can.) The mount is
  /// asked only once a mode would refuse the entry (one `statvfs`), so a safe tree costs nothing more.
  ///
  /// An owner other than root or this process is refused even there: a mode is often an artefact
  /// nobody chose (the kubelet's 0777, a `vfat` or ISO image's 0777 on every file), whereas the owner
  /// is who wrote the contents, which a read-only mount does not change, and who may change them
  /// through any writable mount of the same files, whatever the mode. The kubelet's files belong to
  /// root (`fsGroup` changes their group only), so a pod does not need that relaxed.
  /// - Parameters:
  ///   - disk: where the entry is (the fix names it: under a root, the real file, not the path as
  ///     the configuration writes it).
  ///   - shown: the entry as messages show it.
  ///   - file: the file being checked when the entry is one of its directories, `nil` for the file.
  ///   - link: `lstat` of `disk`.
  private static func entryProblem(
    _ disk: String, shown: String, file: String?, link: stat, euid: uid_t
  ) -> StrataError? {
    func refuse(_ reason: String, fix: String) -> StrataError {
      refuse(reason, then: "fix it with: \(fix)")
    }
    func refuse(_ reason: String, then advice: String) -> StrataError {
      let head = file == nil ? "refusing \(reason)" : "refusing it: \(shown), on its path, is \(reason)"
      return StrataError(.insecurePermissions, "\(head); \(advice)", path: file ?? shown)
    }
    if (link.st_mode & S_IFMT) == S_IFLNK && link.st_uid != 0 && link.st_uid != euid {
      return refuse(
        "a symbolic link owned by uid \(link.st_uid), neither root nor this process (uid \(euid)), as the "
          + "kernel's protected_symlinks would", fix: "chown -h root \(disk)")
    }
    var info = link
    // A link is judged by what it points to; anything else `lstat` has described already.
    if (link.st_mode & S_IFMT) == S_IFLNK {
      guard stat(disk, &info) == 0 else { return nil }
    }
    let isDirectory = (info.st_mode & S_IFMT) == S_IFDIR
    let what = isDirectory ? "a directory" : "a file"
    let mode = info.st_mode & 0o7777
    if info.st_uid != 0 && info.st_uid != euid {
      return refuse(
        "\(what) owned by uid \(info.st_uid), neither root nor this process (uid \(euid))",
        fix: "chown root \(disk)")
    }
    // A world-writable directory with the sticky bit (/tmp) lets others add entries but not replace
    // ours; the owner checks above catch what they add.
    let othersCanWrite = mode & 0o002 != 0 && !(isDirectory && mode & S_ISVTX != 0)
    let groupCanWrite = mode & 0o020 != 0 && info.st_gid != 0 && info.st_gid != getegid()
    guard othersCanWrite || groupCanWrite, !ReadOnlyMount.contains(disk) else { return nil }
    let reason =
      othersCanWrite
      ? "\(what) anyone can write (mode \(FilePermissions.octal(mode)))"
      : "\(what) group \(info.st_gid) can write (mode \(FilePermissions.octal(mode))), neither root's group nor "
        + "this process's"
    // The kubelet writes its volume anew on every update, with the modes the pod spec gives: a `chmod`
    // there is undone by the next update (or, on the read-only mount a pod sees, fails).
    if KubeletVolume.holds(disk) {
      return refuse(
        reason,
        then:
          "it is in a Kubernetes volume (the kubelet's ..data layout), which the pod spec sets up; fix it "
          + "there: " + podSpecFix(isDirectory: isDirectory, others: othersCanWrite, group: info.st_gid))
    }
    return refuse(reason, fix: othersCanWrite ? "chmod o-w \(disk)" : "chmod g-w \(disk)")
  }

  /// The fix, in the pod spec's terms, for an entry of a kubelet volume that others (`others`) or
  /// another `group` can write. `defaultMode` (or an item's `mode`) sets the files' modes, not the
  /// directories' (the kubelet makes the volume's own 0777); `fsGroup` gives the files their group,
  /// which can write them on a writable mount; and on a read-only mount neither mode is refused.
  private static func podSpecFix(isDirectory: Bool, others: Bool, group: gid_t) -> String {
    let readOnly = "mount the volume read-only (readOnly: true in its volumeMounts entry)"
    let defaultMode =
      "set the volume's defaultMode (or the item's mode) to one \(others ? "others" : "the group") cannot write, "
      + "such as 0644"
    let runAsGroup = "set runAsGroup to \(group) (the fsGroup) so that the group is this process's"
    switch (isDirectory, others) {
    case (true, true): return readOnly + "; defaultMode sets the files' modes, not the directory's"
    case (true, false): return runAsGroup + ", or " + readOnly
    case (false, true): return defaultMode + ", or " + readOnly
    case (false, false): return defaultMode + ", " + runAsGroup + ", or " + readOnly
    }
  }
}

/// The entries one load of a layer has looked at, so that each directory its files share is checked
/// once per load. Made by ``FileLayer/load(_:)`` and closed when it returns: after that it answers
/// nothing, so a copy of the options kept past the load cannot carry a verdict into the next one
/// (ownership and modes may change between loads; nothing here would notice).
final class TrustMemo: Sendable {
  private struct State: Sendable {
    /// `lstat` results: whether each entry looked at is a symbolic link.
    var isLink: [String: Bool] = [:]
    /// The entries that passed the trust check.
    var safe: Set<String> = []
    var isOpen = true
  }

  private let state = Locked(State())

  /// Whether `disk` passed the trust check in this load, and if so whether it is a link.
  func safeEntry(_ disk: String) -> Bool? {
    state.withLock { state in state.isOpen && state.safe.contains(disk) ? state.isLink[disk] : nil }
  }

  /// Whether `disk` was seen to be a link in this load; `nil` if not looked at.
  func isLink(_ disk: String) -> Bool? {
    state.withLock { state in state.isOpen ? state.isLink[disk] : nil }
  }

  /// Records what `lstat` found at `disk`, and whether it passed the trust check.
  func record(_ disk: String, isLink: Bool, isSafe: Bool) {
    state.withLock { state in
      guard state.isOpen else { return }
      state.isLink[disk] = isLink
      if isSafe { state.safe.insert(disk) }
    }
  }

  /// Ends the load: forgets everything and records nothing more.
  func close() {
    state.withLock { state in state = State(isOpen: false) }
  }
}
