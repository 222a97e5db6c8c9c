import StrataPlatform

/// Replaces files atomically: a reader (or a crash) sees the old content or the new, never a mix, never
/// an empty file.
enum AtomicFile {
  /// Writes `bytes` to `path` through a temporary file in the same directory, `fsync`, `rename`, and an
  /// `fsync` of the directory. An existing file's mode, owner and group are kept (root editing a user's
  /// file leaves it the user's); a new file gets `newFileMode`. A file with several hard links is
  /// refused: replacing it would split the links, leaving the other names with the old content.
  /// The temporary name starts with a dot, so drop-in directories never load it.
  ///
  /// A writer killed mid-write (`SIGKILL`, a crash, a power cut) cannot remove its temporary file, so
  /// each write first removes the abandoned temporaries of the same file: the temporary is `flock`ed
  /// from just after its creation until after the rename, and one whose lock is free was abandoned.
  /// - Throws: `writeFailed`, naming `reportedAs`, with the old file untouched.
  static func write(_ bytes: [UInt8], to path: String, reportedAs: String, newFileMode: mode_t = 0o600)
    throws(StrataError)
  {
    let directory = directoryPart(of: path)
    let name = String(lastComponent(of: path))
    removeAbandonedTemporaries(of: name, in: directory)
    var info = stat()
    let exists = stat(path, &info) == 0
    let mode = exists ? info.st_mode & 0o7777 : newFileMode
    if exists && info.st_nlink > 1 {
      throw StrataError(
        .writeFailed,
        "the file has \(info.st_nlink) hard links; replacing it would leave the other names with the old "
          + "content: write through a symlink instead, or copy the file", path: reportedAs)
    }
    let (fd, temporary) = createTemporary(joinPath(directory, temporaryPrefix(of: name)))
    guard fd >= 0 else { throw failure("cannot create a temporary file in \(directory)", errno, reportedAs) }
    // The lock is held on a read-only descriptor until after the rename (while it is held, no cleanup
    // removes the file), and the written one is closed before it: readers that refuse a file someone
    // has open for writing (``WriteLease``) read the new file as soon as it is in place.
    let lock = open(temporary, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
    _ = flock(lock >= 0 ? lock : fd, LOCK_EX)
    var renamed = false
    var writing = true
    defer {
      if !renamed { unlink(temporary) }
      if writing { close(fd) }
      if lock >= 0 { close(lock) }
    }
    do {
      if exists && (info.st_uid != geteuid() || info.st_gid != getegid()),
        fchown(fd, info.st_uid, info.st_gid) != 0
      {
        throw failure("cannot keep the file's owner \(info.st_uid):\(info.st_gid)", errno, reportedAs)
      }
      // After fchown, which clears set-id bits.
      guard fchmod(fd, mode) == 0 else { throw failure("cannot set the file mode", errno, reportedAs) }
      guard bytes.withUnsafeBytes({ Syscall.writeAll(fd, $0) }) else {
        throw failure("cannot write", errno, reportedAs)
      }
      guard fsync(fd) == 0 else { throw failure("cannot flush to disk", errno, reportedAs) }
    }
    var written = stat()
    if fstat(fd, &written) == 0 {
      OwnWrites.record(.init(written))
    }
    writing = false
    guard close(fd) == 0 else { throw failure("cannot write", errno, reportedAs) }
    guard rename(temporary, path) == 0 else { throw failure("cannot replace the file", errno, reportedAs) }
    renamed = true
    let directoryFD = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    if directoryFD >= 0 {
      _ = fsync(directoryFD)
      close(directoryFD)
    }
  }

  /// Creates a new file `prefix` + six random letters, mode 0600, as `mkstemp` does but close-on-exec
  /// from the start (`mkostemp` is not imported): a child process started meanwhile by another thread
  /// must not inherit a descriptor open for writing, which would make the file look written for as long
  /// as the child lives (``WriteLease``).
  /// - Returns: the descriptor (-1, with `errno`, on failure) and the path.
  private static func createTemporary(_ prefix: String) -> (Int32, String) {
    let letters = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
    var generator = SystemRandomNumberGenerator()
    var path = prefix
    for _ in 0..<100 {
      path = prefix + String((0..<6).map { _ in letters[Int(generator.next() % UInt64(letters.count))] })
      let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
      if fd >= 0 || errno != EEXIST { return (fd, path) }
    }
    return (-1, path)
  }

  /// `.NAME.strata-`: the start of the temporary files' names for a file named `NAME`.
  static func temporaryPrefix(of name: String) -> String { ".\(name).strata-" }

  /// Removes the temporary files of writes to `name` that died before their rename: those whose lock is
  /// free. An empty one is left alone for a minute, since its writer may not have locked it yet.
  static func removeAbandonedTemporaries(of name: String, in directory: String) {
    let prefix = temporaryPrefix(of: name)
    guard let names = try? FileSystem.contents(ofDirectory: directory, reportedAs: directory) else { return }
    for candidate in names where candidate.hasPrefix(prefix) && candidate.utf8.count == prefix.utf8.count + 6
    {
      let temporary = joinPath(directory, candidate)
      let fd = open(temporary, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
      guard fd >= 0 else { continue }
      defer { close(fd) }
      var info = stat()
      guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG,
        flock(fd, LOCK_EX | LOCK_NB) == 0,
        info.st_size > 0 || time(nil) - info.modificationTime.tv_sec > 60
      else { continue }
      // Still the same file under that name: not renamed into place since it was opened.
      var current = stat()
      guard lstat(temporary, &current) == 0, current.st_ino == info.st_ino, current.st_dev == info.st_dev
      else { continue }
      unlink(temporary)
    }
  }

  /// Creates a directory and its missing parents with mode 0700 (a user's configuration directory).
  static func createDirectories(_ path: String, reportedAs: String) throws(StrataError) {
    if FileSystem.isDirectory(path) { return }
    let parent = directoryPart(of: path)
    if parent != path && parent != "/" && parent != "." {
      try createDirectories(parent, reportedAs: directoryPart(of: reportedAs))
    }
    if mkdir(path, 0o700) != 0 {
      let code = errno
      if code != EEXIST { throw failure("cannot create the directory", code, reportedAs) }
      if !FileSystem.isDirectory(path) {
        throw StrataError(.writeFailed, "cannot create the directory: a file is in the way", path: reportedAs)
      }
    }
  }

  private static func failure(_ what: String, _ code: Int32, _ path: String) -> StrataError {
    StrataError(.writeFailed, "\(what): \(FileReader.describe(errno: code))", path: path)
  }
}
