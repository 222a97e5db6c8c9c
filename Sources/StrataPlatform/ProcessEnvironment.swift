/// The process environment as the C library holds it: `NAME=value` byte strings, not decoded.
public enum ProcessEnvironment {
  /// Calls `body` with each entry's bytes (without the terminating NUL), in the order the C library
  /// keeps them. Not safe against a concurrent `setenv`, like every reader of `environ`.
  public static func forEachEntry(_ body: (UnsafeBufferPointer<UInt8>) -> Void) {
    guard var entry = entries else { return }
    while let pointer = entry.pointee {
      body(
        UnsafeBufferPointer(
          start: UnsafeRawPointer(pointer).assumingMemoryBound(to: UInt8.self), count: strlen(pointer)))
      entry += 1
    }
  }

  /// The C library's `environ` list. Darwin does not export `environ` to Swift: `_NSGetEnviron()`
  /// (`<crt_externs.h>`, in the Darwin module) returns its address. glibc, Bionic and musl declare
  /// `extern char **environ` (`<unistd.h>`).
  private static var entries: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? {
    #if canImport(Darwin)
      _NSGetEnviron().pointee
    #else
      environ
    #endif
  }
}
