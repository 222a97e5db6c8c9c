import StrataPlatform

/// The process environment as the kernel passed it, bytes and all: Foundation's view decodes invalid
/// UTF-8 into U+FFFD without a word, and a configuration value must not change silently.
package enum RawEnvironment {
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

  /// Every variable, by name, decoded as Foundation's `ProcessInfo.environment` decodes it (invalid
  /// UTF-8 repaired; ``namesWithInvalidUTF8(prefix:)`` tells which), the first of a repeated name
  /// winning as with `getenv`. A tool that starts often reads it this way: Foundation's view builds
  /// its own copy through more machinery (a third of `config-dump --key`'s instructions).
  package static func variables() -> [String: String] {
    var variables: [String: String] = [:]
    ProcessEnvironment.forEachEntry { bytes in
      guard let equals = bytes.firstIndex(of: UInt8(ascii: "=")) else { return }
      let name = String(decoding: bytes[..<equals], as: UTF8.self)
      if variables[name] == nil {
        variables[name] = String(decoding: bytes[(equals + 1)...], as: UTF8.self)
      }
    }
    return variables
  }
}
