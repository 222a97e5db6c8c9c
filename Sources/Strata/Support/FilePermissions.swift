import Glibc

/// Modes in messages (the checks before reading are ``FileTrust``'s).
enum FilePermissions {
  /// The mode of a file when its group or others may read it, else `nil`.
  static func readableByOthers(_ resolvedPath: String) -> mode_t? {
    var info = stat()
    guard stat(resolvedPath, &info) == 0 else { return nil }
    let mode = info.st_mode & 0o7777
    return mode & 0o044 != 0 ? mode : nil
  }

  static func octal(_ mode: mode_t) -> String { "0" + String(mode, radix: 8) }
}
