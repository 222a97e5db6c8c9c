import Glibc

/// Reads whole files with a size limit, through Glibc, so that a huge or endless file is an error
/// rather than an out-of-memory.
enum FileReader {
  /// Reads a regular file.
  /// - Parameters:
  ///   - path: where to read.
  ///   - reportedAs: the path to name in errors (the path before any root prefix).
  ///   - limit: the largest size accepted, in bytes.
  /// - Returns: the bytes, or `nil` when nothing exists at `path` (a missing file is an absent layer).
  /// - Throws: `unreadable` (permissions, a directory, an I/O error) or `fileTooLarge`.
  static func read(_ path: String, reportedAs: String, limit: Int) throws(StrataError) -> [UInt8]? {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    if fd < 0 {
      let code = errno
      if code == ENOENT || code == ENOTDIR { return nil }
      throw StrataError(.unreadable, "cannot open: \(describe(errno: code))", path: reportedAs)
    }
    defer { close(fd) }
    var info = stat()
    guard fstat(fd, &info) == 0 else {
      throw StrataError(.unreadable, "cannot stat: \(describe(errno: errno))", path: reportedAs)
    }
    if (info.st_mode & S_IFMT) == S_IFDIR {
      throw StrataError(.unreadable, "is a directory, not a file", path: reportedAs)
    }
    if Int(info.st_size) > limit {
      throw tooLarge(reportedAs, limit)
    }
    // Read until EOF rather than trusting st_size: files in /proc and pipes report 0.
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

  private static func tooLarge(_ path: String, _ limit: Int) -> StrataError {
    StrataError(.fileTooLarge, "file is larger than the limit of \(limit) bytes", path: path)
  }

  /// `strerror` text for an errno value.
  static func describe(errno code: Int32) -> String {
    String(cString: strerror(code))
  }
}
