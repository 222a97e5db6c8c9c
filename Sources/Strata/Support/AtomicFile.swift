import Glibc

/// Replaces files atomically: a reader (or a crash) sees the old content or the new, never a mix, never
/// an empty file.
enum AtomicFile {
  /// Writes `bytes` to `path` through a temporary file in the same directory, `fsync`, `rename`, and an
  /// `fsync` of the directory. An existing file's mode is kept; a new file gets `newFileMode`.
  /// The temporary name starts with a dot, so drop-in directories never load it.
  /// - Throws: `writeFailed`, naming `reportedAs`, with the old file untouched.
  static func write(_ bytes: [UInt8], to path: String, reportedAs: String, newFileMode: mode_t = 0o600)
    throws(StrataError)
  {
    let directory = directoryPart(of: path)
    let name = lastComponent(of: path)
    var info = stat()
    let mode = stat(path, &info) == 0 ? info.st_mode & 0o7777 : newFileMode
    var template = Array(joinPath(directory, ".\(name).strata-XXXXXX").utf8CString)
    let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
    guard fd >= 0 else { throw failure("cannot create a temporary file in \(directory)", errno, reportedAs) }
    _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
    let temporary = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
    var renamed = false
    defer {
      if !renamed { unlink(temporary) }
    }
    do {
      defer { close(fd) }
      guard fchmod(fd, mode) == 0 else { throw failure("cannot set the file mode", errno, reportedAs) }
      var offset = 0
      while offset < bytes.count {
        let written = bytes.withUnsafeBytes { raw in
          Glibc.write(fd, raw.baseAddress! + offset, raw.count - offset)
        }
        if written < 0 {
          if errno == EINTR { continue }
          throw failure("cannot write", errno, reportedAs)
        }
        offset += written
      }
      guard fsync(fd) == 0 else { throw failure("cannot flush to disk", errno, reportedAs) }
    }
    guard rename(temporary, path) == 0 else { throw failure("cannot replace the file", errno, reportedAs) }
    renamed = true
    let directoryFD = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    if directoryFD >= 0 {
      _ = fsync(directoryFD)
      close(directoryFD)
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
