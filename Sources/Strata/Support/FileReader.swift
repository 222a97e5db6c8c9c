import StrataPlatform

/// Reads whole files with a size limit, through the platform layer, so that a huge or endless file is an error
/// rather than an out-of-memory.
enum FileReader {
  /// Reads a regular file, and nothing else: a FIFO, a socket, a device (a link to `/dev/zero` or
  /// `/dev/urandom`) or a directory at a configuration path is refused, and is never opened in a way
  /// that could block (a FIFO with no writer would hang a program's start-up for good). `/dev/null`
  /// reads as an empty file.
  /// - Parameters:
  ///   - path: where to read.
  ///   - reportedAs: the path to name in errors (the path before any root prefix).
  ///   - limit: the largest size accepted, in bytes.
  /// - Returns: the bytes, or `nil` when nothing exists at `path` (a missing file is an absent layer).
  /// - Throws: `unreadable` (permissions, not a regular file, an I/O error) or `fileTooLarge`.
  static func read(_ path: String, reportedAs: String, limit: Int) throws(StrataError) -> [UInt8]? {
    switch try read(path, reportedAs: reportedAs, limit: limit, unlessBeingWritten: false) {
    case .bytes(let bytes, _): bytes
    case .missing, .beingWritten: nil
    }
  }

  /// What ``read(_:reportedAs:limit:unlessBeingWritten:)`` found.
  enum Outcome {
    /// The file's bytes, and whether the kernel showed that no one had it open for writing while it was
    /// read (`false`: it could not tell, or was not asked).
    case bytes([UInt8], noWriter: Bool)
    /// Nothing exists at the path.
    case missing
    /// Someone has the file open for writing (known only where ``WriteLease`` can tell).
    case beingWritten
  }

  /// Reads a regular file, as ``read(_:reportedAs:limit:)`` does; with `unlessBeingWritten`, a file
  /// someone has open for writing is not read, and while it is read no writer can open it
  /// (``WriteLease``: where the kernel can tell).
  static func read(
    _ path: String, reportedAs: String, limit: Int, unlessBeingWritten: Bool
  ) throws(StrataError) -> Outcome {
    // O_NONBLOCK: opening a FIFO for reading returns at once instead of waiting for a writer; the
    // file's kind is then checked on the opened descriptor, so nothing can swap it in between.
    if let injected = InjectedFaults.failure(for: path) {
      throw StrataError(.unreadable, "cannot read: \(describe(errno: injected))", path: reportedAs)
    }
    let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)
    if fd < 0 {
      let code = errno
      if code == ENOENT || code == ENOTDIR { return .missing }
      if code == ENXIO, let kind = kind(at: path) {  // a socket cannot be opened at all
        throw StrataError(.unreadable, "not a regular file: \(kind)", path: reportedAs)
      }
      // Permission denied names who asked, who owns the entry in the way, its mode and the fix.
      let reason = code == EACCES ? ": " + FilePermissions.accessDenied(path) : ""
      throw StrataError(.unreadable, "cannot open: \(describe(errno: code))\(reason)", path: reportedAs)
    }
    defer { close(fd) }
    var info = stat()
    guard fstat(fd, &info) == 0 else {
      throw StrataError(.unreadable, "cannot stat: \(describe(errno: errno))", path: reportedAs)
    }
    guard (info.st_mode & S_IFMT) == S_IFREG else {
      // /dev/null is the one exception: a config file linked to it is empty, as systemd masks one.
      if isDevNull(info) { return .bytes([], noWriter: false) }
      throw StrataError(.unreadable, "not a regular file: \(describe(mode: info.st_mode))", path: reportedAs)
    }
    var leased = false
    if unlessBeingWritten {
      // An empty file changed in the last 2 s is a writer at work too, whatever the lease says: a file
      // just created is visible a moment before its creator's descriptor counts as open for writing, and
      // a writer that truncates writes next. Emptied on purpose, it is read once 2 s have passed.
      let emptyAndNew = isEmptyAndNew(info)
      switch WriteLease.acquire(fd) {
      // Open for writing and written lately, or empty (created or truncated, not written yet), or
      // created or written and not closed as the watcher saw it: a writer at work. A descriptor open
      // for writing for long and unused (one a child process inherited, say) holds nothing back.
      case .beingWritten
      where !OwnWrites.contains(.init(info))
        && (isRecent(info.modificationTime) || info.st_size == 0
          || WritesInProgress.isOpen(FileSystem.absolutePath(path))):
        return .beingWritten
      case .beingWritten: break
      case .held where emptyAndNew:
        WriteLease.release(fd)
        return .beingWritten
      case .held: leased = true
      case .unknown where emptyAndNew: return .beingWritten
      case .unknown: break
      }
    }
    // Released before the descriptor is closed (the `defer` above runs after this one).
    defer { if leased { WriteLease.release(fd) } }
    if Int(info.st_size) > limit {
      throw tooLarge(reportedAs, limit)
    }
    // Read until EOF rather than trusting st_size: files in /proc and pipes report 0. The file is read
    // straight into uninitialized arrays (one byte more than its size, to see the end in the same
    // call), then in chunks while it grows: no zeroed buffer and no copy for a file that keeps its size.
    var bytes: [UInt8] = []
    var request = Int(info.st_size) + 1
    while true {
      var failure: Int32?
      let chunk = [UInt8](unsafeUninitializedCapacity: request) { buffer, initialized in
        while initialized < buffer.count {
          let count = Syscall.read(fd, buffer.baseAddress! + initialized, buffer.count - initialized)
          if count < 0 {
            failure = errno
            return
          }
          if count == 0 { return }
          initialized += count
        }
      }
      if let failure {
        throw StrataError(.unreadable, "cannot read: \(describe(errno: failure))", path: reportedAs)
      }
      if bytes.isEmpty { bytes = chunk } else { bytes += chunk }
      if bytes.count > limit { throw tooLarge(reportedAs, limit) }
      if chunk.count < request { return .bytes(bytes, noWriter: leased) }  // end of file
      request = min(max(bytes.count, 64 * 1024), limit - bytes.count + 1)
    }
  }

  /// Whether the regular file at `path` (following symlinks) is empty and changed in the last 2 s by
  /// someone other than this process's writer: a file a writer has created or truncated and not
  /// written yet, whatever the read lease says.
  static func isEmptyAndNew(_ path: String) -> Bool {
    var info = stat()
    return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG && isEmptyAndNew(info)
  }

  private static func isEmptyAndNew(_ info: stat) -> Bool {
    info.st_size == 0 && isRecent(info.modificationTime) && !OwnWrites.contains(.init(info))
  }

  /// Whether a file time is within the last 2 seconds (or in the future).
  private static func isRecent(_ time: timespec) -> Bool {
    var now = timespec()
    clock_gettime(CLOCK_REALTIME, &now)
    return time.tv_sec + 2 >= now.tv_sec
  }

  private static func tooLarge(_ path: String, _ limit: Int) -> StrataError {
    StrataError(
      .fileTooLarge,
      "file is larger than the limit of \(limit) bytes (raise it with config-dump --max-file-size or "
        + "ParseOptions.maxFileSize)", path: path)
  }

  /// Whether stat information describes `/dev/null` (the same character device).
  static func isDevNull(_ info: stat) -> Bool {
    var null = stat()
    return (info.st_mode & S_IFMT) == S_IFCHR && stat("/dev/null", &null) == 0 && null.st_rdev == info.st_rdev
  }

  /// What is at `path` (following links), in words, or `nil` when nothing is.
  static func kind(at path: String) -> String? {
    var info = stat()
    guard stat(path, &info) == 0 else { return nil }
    return describe(mode: info.st_mode)
  }

  /// A file type in words: `a FIFO`, `a socket`, `a character device`, ….
  static func describe(mode: mode_t) -> String {
    switch mode & S_IFMT {
    case S_IFREG: "a regular file"
    case S_IFDIR: "a directory"
    case S_IFIFO: "a FIFO (named pipe)"
    case S_IFSOCK: "a socket"
    case S_IFCHR: "a character device"
    case S_IFBLK: "a block device"
    default: "not a file"
    }
  }

  /// `strerror` text for an errno value.
  static func describe(errno code: Int32) -> String {
    String(cString: strerror(code))
  }
}
