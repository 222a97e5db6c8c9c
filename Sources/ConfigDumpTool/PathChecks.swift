import StrataPlatform

/// The two questions `config-dump` asks of a path before loading anything.
enum PathChecks {
  /// Whether anything is at `path` (following links).
  static func exists(_ path: String) -> Bool {
    var info = stat()
    return stat(path, &info) == 0
  }

  /// Whether `path` is a directory (following links).
  static func isDirectory(_ path: String) -> Bool {
    var info = stat()
    return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
  }
}
