/// Writes a tree as a dotenv file: one `NAME=value` line per scalar, in table order, names joined with
/// `.` (see ``DotEnvKeys``), values bare when they read back as themselves, else quoted.
enum DotEnvSerializer {
  /// The file for a tree (a table at the top). Empty tables write nothing.
  /// - Throws: ``StrataError`` `typeMismatch` for a value that is not a table at the top or for an array,
  ///   `invalidValue` for a name that would not read back as itself or a value holding a NUL byte.
  static func serialize(_ value: SettingValue) throws(StrataError) -> [UInt8] {
    guard case .table(let table) = value.kind else {
      throw StrataError(
        .typeMismatch, "a configuration file must hold a table at the top, found a \(value.typeName)")
    }
    var out: [UInt8] = []
    try write(table, names: [], into: &out)
    return out
  }

  private static func write(_ table: SettingTable, names: [String], into out: inout [UInt8])
    throws(StrataError)
  {
    for (name, child) in table {
      let childNames = names + [name]
      if case .table(let nested) = child.kind {
        try write(nested, names: childNames, into: &out)
        continue
      }
      out += try line(for: childNames, value: child)
      out.append(UInt8(ascii: "\n"))
    }
  }

  /// `NAME=value`, without a line break.
  static func line(for names: [String], value: SettingValue) throws(StrataError) -> [UInt8] {
    guard let key = DotEnvKeys.written(names) else {
      throw StrataError(
        .invalidValue,
        "a dotenv name is letters, digits, '_' and '-' (not only capitals, no '__'), so \(SettingKey.join(names)) "
          + "cannot be written")
    }
    return Array(key.utf8) + [UInt8(ascii: "=")] + (try encodedValue(value, key: SettingKey.join(names)))
  }

  /// A scalar as written after `=`: bare, in single quotes, or in double quotes with escapes.
  static func encodedValue(_ value: SettingValue, key: String) throws(StrataError) -> [UInt8] {
    if case .array = value.kind {
      throw StrataError(.typeMismatch, "a dotenv file cannot hold an array (at \(key))")
    }
    let text = ValueText.environment(value)
    let bytes = Array(text.utf8)
    if bytes.contains(0) {
      throw StrataError(.invalidValue, "a dotenv value cannot hold a NUL byte (at \(key))")
    }
    if isBare(bytes) { return bytes }
    if !bytes.contains(where: { $0 == UInt8(ascii: "'") || $0 < 0x20 || $0 == 0x7F }) {
      return [UInt8(ascii: "'")] + bytes + [UInt8(ascii: "'")]
    }
    var out: [UInt8] = [UInt8(ascii: "\"")]
    for byte in bytes {
      switch byte {
      case UInt8(ascii: "\""), UInt8(ascii: "\\"): out += [UInt8(ascii: "\\"), byte]
      case 0x0A: out += Array("\\n".utf8)
      case 0x0D: out += Array("\\r".utf8)
      case 0x09: out += Array("\\t".utf8)
      default: out.append(byte)
      }
    }
    out.append(UInt8(ascii: "\""))
    return out
  }

  /// Whether a value reads back as itself unquoted: no blanks at its ends, no quote or `#` first, no
  /// control characters, and no `#` after a blank (which would start a comment).
  private static func isBare(_ bytes: [UInt8]) -> Bool {
    guard let first = bytes.first, let last = bytes.last else { return true }
    let blanks: [UInt8] = [0x20, 0x09]
    if blanks.contains(first) || blanks.contains(last) { return false }
    if first == UInt8(ascii: "'") || first == UInt8(ascii: "\"") || first == UInt8(ascii: "#") {
      return false
    }
    var previous: UInt8 = 0
    for byte in bytes {
      if byte < 0x20 || byte == 0x7F { return false }
      if byte == UInt8(ascii: "#") && blanks.contains(previous) { return false }
      previous = byte
    }
    return true
  }
}
