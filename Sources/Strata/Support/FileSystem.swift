import StrataPlatform

/// The one place that asks the disk about paths (the few questions the layers, the writer, the watcher
/// and the INI includes ask); path arithmetic, which never asks it, is in `Paths.swift`.
enum FileSystem {
  /// What is at a path, without following a final symlink.
  enum Entry: Equatable {
    case missing, file, directory, symlink, other
  }

  /// The kind of entry at `path` (`lstat`).
  static func entry(at path: String) -> Entry {
    var info = stat()
    guard lstat(path, &info) == 0 else { return .missing }
    switch info.st_mode & S_IFMT {
    case S_IFREG: return .file
    case S_IFDIR: return .directory
    case S_IFLNK: return .symlink
    default: return .other
    }
  }

  /// Whether `lstat` fails on `path` because a directory on the way cannot be searched: the entry may
  /// exist, hidden from this process (reading it says why, see ``FilePermissions/accessDenied(_:)``).
  static func isHidden(_ path: String) -> Bool {
    var info = stat()
    return lstat(path, &info) != 0 && errno == EACCES
  }

  /// Whether `path` is a directory (following symlinks).
  static func isDirectory(_ path: String) -> Bool {
    var info = stat()
    return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
  }

  /// Whether `path` is a regular file (following symlinks) of zero bytes.
  static func isEmptyRegularFile(_ path: String) -> Bool {
    var info = stat()
    return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG && info.st_size == 0
  }

  /// The size of the file at `path` (following symlinks), or `nil` when it cannot be stat'ed.
  static func size(of path: String) -> Int? {
    var info = stat()
    guard stat(path, &info) == 0 else { return nil }
    return Int(info.st_size)
  }

  /// The target of the symlink at `path`, or `nil`.
  static func symlinkTarget(_ path: String) -> String? {
    var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
    let count = readlink(path, &buffer, buffer.count - 1)
    guard count >= 0 else { return nil }
    return String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
  }

  /// The names in a directory (without `.` and `..`).
  /// - Returns: `nil` when the directory does not exist.
  /// - Throws: `unreadable` when it exists but cannot be listed.
  static func contents(ofDirectory path: String, reportedAs: String) throws(StrataError) -> [String]? {
    do {
      return try names(inDirectory: path)
    } catch {
      if error.code == ENOENT { return nil }
      if error.code == ENOTDIR {
        throw StrataError(.unreadable, "is not a directory", path: reportedAs)
      }
      let reason = error.code == EACCES ? ": " + FilePermissions.accessDenied(path) : ""
      throw StrataError(
        .unreadable, "cannot list directory: \(FileReader.describe(errno: error.code))\(reason)",
        path: reportedAs)
    }
  }

  /// Why a directory could not be listed: the `errno` of `opendir`.
  struct ListingFailure: Error, Equatable {
    var code: Int32
  }

  /// The names in a directory (without `.` and `..`), in the order the directory gives them.
  /// - Throws: the `errno` of `opendir` when the directory cannot be opened (`ENOENT` when it does not
  ///   exist), for callers that word the failure their own way.
  static func names(inDirectory path: String) throws(ListingFailure) -> [String] {
    if let injected = InjectedFaults.failure(for: path) { throw ListingFailure(code: injected) }
    guard let names = DirectoryEntries.names(atPath: path) else { throw ListingFailure(code: errno) }
    return names.filter { $0 != "." && $0 != ".." }
  }

  /// The real path of an existing file or directory (symlinks, `.` and `..` resolved; the empty path
  /// is the current directory), or `nil`.
  static func realPath(_ path: String) -> String? {
    guard let real = realpath(path.isEmpty ? "." : path, nil) else { return nil }
    defer { free(real) }
    return String(cString: real)
  }

  /// `path` made absolute against the current directory (a leading `./` dropped); `path` itself when it
  /// is absolute already, or when the current directory cannot be named (removed, or not searchable).
  static func absolutePath(_ path: String) -> String {
    guard !path.hasPrefix("/") else { return path }
    var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
    guard getcwd(&buffer, buffer.count) != nil else { return path }
    let directory = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    return joinPath(directory, path.hasPrefix("./") ? String(path.dropFirst(2)) : path)
  }
}
