#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// One-line text for values in tables, `--key` output and environment exports.
enum ValueText {
  /// Strings as they are (control characters escaped), numbers and booleans as literals, dates in
  /// ISO 8601, data in base64, arrays as `[a, b]`, tables as `{…}`.
  static func plain(_ value: SettingValue) -> String {
    switch value.kind {
    case .string(let s): escapeControls(s)
    case .integer(let i): String(i)
    case .unsignedInteger(let u): String(u)
    case .double(let d): String(d)
    case .bool(let b): b ? "true" : "false"
    case .date(let d): ISODateText.format(d)
    case .data(let d): d.base64EncodedString()
    case .array(let items): "[" + items.map(plain).joined(separator: ", ") + "]"
    case .table(let t):
      t.isEmpty ? "{}" : "{" + t.map { "\($0.key): \(plain($0.value))" }.joined(separator: ", ") + "}"
    }
  }

  /// The text an environment variable would hold: like ``plain(_:)``, but arrays as `a, b, c`, the
  /// list form that array settings accept.
  static func environment(_ value: SettingValue) -> String {
    if case .array(let items) = value.kind { return items.map(environment).joined(separator: ", ") }
    if case .string(let s) = value.kind { return s }
    return plain(value)
  }

  private static func escapeControls(_ s: String) -> String { s.escapingControlCharacters }

  /// Quotes a word for a POSIX shell when it needs it: `'it'\''s'`.
  static func shellQuoted(_ s: String) -> String {
    let safe = s.utf8.allSatisfy { c in
      (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A)
        || c == UInt8(ascii: "_") || c == UInt8(ascii: "-") || c == UInt8(ascii: ".")
        || c == UInt8(ascii: "/")
        || c == UInt8(ascii: ":") || c == UInt8(ascii: ",") || c == UInt8(ascii: "@")
        || c == UInt8(ascii: "+")
    }
    if safe && !s.isEmpty { return s }
    return "'" + s.split(separator: "'", omittingEmptySubsequences: false).joined(separator: "'\\''") + "'"
  }
}
