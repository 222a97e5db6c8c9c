import StrataPlatform

/// The process environment as the kernel passed it, bytes and all: Foundation's view decodes invalid
/// UTF-8 into U+FFFD without a word, and a configuration value must not change silently.
enum RawEnvironment {
  /// The names of the variables whose values are not valid UTF-8, among those whose names start with
  /// `prefix`.
  static func namesWithInvalidUTF8(prefix: String) -> Set<String> {
    var names: Set<String> = []
    ProcessEnvironment.forEachEntry { bytes in
      if let equals = bytes.firstIndex(of: UInt8(ascii: "=")),
        String(validating: bytes[..<equals], as: UTF8.self)?.hasPrefix(prefix) == true,
        String(validating: bytes[(equals + 1)...], as: UTF8.self) == nil
      {
        names.insert(String(decoding: bytes[..<equals], as: UTF8.self))
      }
    }
    return names
  }
}
