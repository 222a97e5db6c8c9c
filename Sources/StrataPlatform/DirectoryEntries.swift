/// The names in a directory, read with `opendir`/`readdir`/`closedir` (`<dirent.h>`, POSIX.1).
public enum DirectoryEntries {
  /// Every name in the directory at `path`, `.` and `..` included, in the order `readdir` gives them;
  /// `nil` with `errno` set when `opendir` fails.
  public static func names(atPath path: String) -> [String]? {
    guard let directory = opendir(path) else { return nil }
    defer { closedir(directory) }
    var names: [String] = []
    while let entry = readdir(directory) { names.append(name(of: entry)) }
    return names
  }

  /// The name of one entry, read in place.
  ///
  /// `d_name` is declared as a 256-byte array, but the kernel packs entries end to end and sizes each
  /// by `d_reclen`, so the last entry of a buffer can end a few bytes after its name's NUL. Copying the
  /// field (`withUnsafeBytes(of: entry.pointee.d_name)`) reads past the buffer; this reads up to the NUL
  /// from the field's address only. The field is `d_name` on glibc, musl, Bionic and Darwin.
  static func name(of entry: UnsafeMutablePointer<dirent>) -> String {
    let offset = MemoryLayout<dirent>.offset(of: \dirent.d_name)!
    let field = UnsafeRawPointer(entry).advanced(by: offset).assumingMemoryBound(to: CChar.self)
    return String(cString: field)
  }
}
