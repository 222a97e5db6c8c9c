import StrataPlatform

/// The few file-system questions the layers ask, through the platform layer.
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
    guard let dir = opendir(path) else {
      let code = errno
      if code == ENOENT { return nil }
      if code == ENOTDIR {
        throw StrataError(.unreadable, "is not a directory", path: reportedAs)
      }
      let reason = code == EACCES ? ": " + FilePermissions.accessDenied(path) : ""
      throw StrataError(
        .unreadable, "cannot list directory: \(FileReader.describe(errno: code))\(reason)", path: reportedAs)
    }
    defer { closedir(dir) }
    var names: [String] = []
    while let entry = readdir(dir) {
      let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
        String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
      }
      if name != "." && name != ".." { names.append(name) }
    }
    return names
  }
}

/// Joins a directory and a name with exactly one `/`.
func joinPath(_ directory: String, _ name: String) -> String {
  if directory.isEmpty { return name }
  return directory.hasSuffix("/") ? directory + name : directory + "/" + name
}

/// The directory part of a path (`/etc/demo` for `/etc/demo/demo.ini`, `.` for `demo.ini`).
func directoryPart(of path: String) -> String {
  guard let slash = path.lastIndex(of: "/") else { return "." }
  return slash == path.startIndex ? "/" : String(path[..<slash])
}

/// The last component of a path.
func lastComponent(of path: String) -> String {
  guard let slash = path.lastIndex(of: "/") else { return path }
  return String(path[path.index(after: slash)...])
}
