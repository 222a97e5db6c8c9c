/// How a dotenv name maps to a setting key, and back.
///
/// A name is split into names at each `.` and each `__` (`server.port`, `DB__POOL_SIZE`); a name
/// written without lower-case letters is lower-cased (`DB__POOL_SIZE` → `db.pool_size`, as
/// ``EnvironmentNames`` maps `PREFIX_DB__POOL_SIZE`), and one with a lower-case letter is kept as written
/// (`server.maxConnections`). The full rule is in the catalog's DotEnvDialect article.
enum DotEnvKeys {
  /// Whether a byte may start a name: a letter or `_`.
  static func isNameStart(_ byte: UInt8) -> Bool {
    (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) || byte == UInt8(ascii: "_")
  }

  /// Whether a byte may continue a name: a letter, a digit, `_`, `.` or `-`.
  static func isNameByte(_ byte: UInt8) -> Bool {
    isNameStart(byte) || (byte >= 0x30 && byte <= 0x39) || byte == UInt8(ascii: ".")
      || byte == UInt8(ascii: "-")
  }

  /// The names `key` (as written, of ``isNameByte(_:)`` bytes) maps to, or `nil` when a separator leaves
  /// an empty name (`a..b`, `a.`, `A____B`).
  static func names(of key: String) -> [String]? {
    var names: [String] = []
    for part in key.split(separator: ".", omittingEmptySubsequences: false) {
      for name in part.split(separator: "__", omittingEmptySubsequences: false) {
        guard !name.isEmpty else { return nil }
        names.append(name.contains(where: \.isLowercase) ? String(name) : name.lowercased())
      }
    }
    return names
  }

  /// The name to write for a key's names (joined with `.`), or `nil` when some name would not read back
  /// as itself: an empty name, one with a byte a name cannot hold, or `__`, or a name with upper-case
  /// but no lower-case letters (it would read back lower-cased), or a first name that does not start
  /// with a letter or `_`.
  static func written(_ names: [String]) -> String? {
    guard let first = names.first?.utf8.first, isNameStart(first) else { return nil }
    for name in names {
      let bytes = Array(name.utf8)
      guard !bytes.isEmpty, !name.contains("__"), !name.contains("."),
        bytes.allSatisfy(isNameByte),
        name.contains(where: \.isLowercase) || !name.contains(where: \.isUppercase)
      else { return nil }
    }
    return names.joined(separator: ".")
  }
}
