import Glibc

/// Reads whole files with a size limit, through Glibc, so that a huge or endless file is an error
/// rather than an out-of-memory.
enum FileReader {
  /// Reads a regular file.
  ///
  /// The file is opened without blocking (`O_NONBLOCK`, `O_NOCTTY`) and refused unless the opened
  /// descriptor is a regular file, so a FIFO, socket, device or directory at a config path (or a symlink
  /// to one, such as `/dev/zero`) is an error rather than a hang or an endless read. Checking the opened
  /// descriptor, not the path, leaves no window for the path to be swapped between the check and the read.
  /// `/dev/null` is the one exception: it reads as an empty file, as it does for systemd.
  /// - Parameters:
  ///   - path: where to read.
  ///   - reportedAs: the path to name in errors (the path before any root prefix).
  ///   - limit: the largest size accepted, in bytes.
  /// - Returns: the bytes, or `nil` when nothing exists at `path` (a missing file is an absent layer).
  /// - Throws: `unreadable` (permissions, not a regular file, an I/O error) or `fileTooLarge`.
  static func read(_ path: String, reportedAs: String, limit: Int) throws(StrataError) -> [UInt8]? {
    let fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)
    if fd < 0 {
      let code = errno
      if code == ENOENT || code == ENOTDIR { return nil }
      // A socket cannot be opened at all (ENXIO); say what it is rather than "no such device".
      var info = stat()
      if stat(path, &info) == 0, let kind = FileSystem.nonRegularKind(info.st_mode) {
        throw notRegular(reportedAs, kind)
      }
      throw StrataError(.unreadable, "cannot open: \(describe(errno: code))", path: reportedAs)
    }
    defer { close(fd) }
    var info = stat()
    guard fstat(fd, &info) == 0 else {
      throw StrataError(.unreadable, "cannot stat: \(describe(errno: errno))", path: reportedAs)
    }
    if let kind = FileSystem.nonRegularKind(info.st_mode) {
      if FileSystem.isDevNull(info) { return [] }
      throw notRegular(reportedAs, kind)
    }
    // A regular file never blocks, but clear the flag so that reads behave as documented everywhere.
    let flags = fcntl(fd, F_GETFL)
    if flags >= 0 { _ = fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) }
    if Int(info.st_size) > limit {
      throw tooLarge(reportedAs, limit)
    }
    // Read until EOF rather than trusting st_size: files in /proc report 0.
    var bytes: [UInt8] = []
    bytes.reserveCapacity(Int(info.st_size) + 1)
    var chunk = [UInt8](repeating: 0, count: 64 * 1024)
    while true {
      let count = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
      if count < 0 {
        if errno == EINTR { continue }
        throw StrataError(.unreadable, "cannot read: \(describe(errno: errno))", path: reportedAs)
      }
      if count == 0 { break }
      if bytes.count + count > limit { throw tooLarge(reportedAs, limit) }
      bytes.append(contentsOf: chunk[0..<count])
    }
    return bytes
  }

  private static func notRegular(_ path: String, _ kind: String) -> StrataError {
    StrataError(.unreadable, "not a regular file: \(kind)", path: path)
  }

  private static func tooLarge(_ path: String, _ limit: Int) -> StrataError {
    StrataError(.fileTooLarge, "file is larger than the limit of \(limit) bytes", path: path)
  }

  /// `strerror` text for an errno value.
  static func describe(errno code: Int32) -> String {
    String(cString: strerror(code))
  }
}
