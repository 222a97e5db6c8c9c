#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// Reads leaf values against the type the program declared, accepting the text forms that INI files and
/// environment variables produce wherever the reading is unambiguous.
///
/// Every function either returns the exact value or throws; nothing is truncated, wrapped or defaulted.
/// The code is `typeMismatch` when the node cannot be read as the type at all (wrong kind, text of the
/// wrong shape) and `invalidValue` when it has the right shape but an unacceptable value (out of range).
enum ScalarConversion {
  /// The place being decoded, for messages: the full dotted key and the type as the program wrote it.
  /// Where a conversion happens, for messages. The key and the type's name are worked out only when a
  /// message needs them: naming a type demangles its metadata, which costs more than the conversion.
  struct Site {
    var baseKey: String
    var path: [any CodingKey] = []
    var type: Any.Type

    /// The dotted key, with the coding path appended.
    var key: String { CodingSupport.dottedKey(baseKey, path) }
    /// The type as a user writes it (`Int`, `[String]`).
    var typeName: String { CodingSupport.typeName(type) }
  }

  static func integer<I: FixedWidthInteger>(_ type: I.Type, _ node: SettingValue, _ site: Site)
    throws(StrataError) -> I
  {
    switch node.kind {
    case .integer(let i):
      guard let value = I(exactly: i) else { throw outOfRange(node, site) }
      return value
    case .unsignedInteger(let u):
      guard let value = I(exactly: u) else { throw outOfRange(node, site) }
      return value
    case .double(let d) where d.isFinite && d == d.rounded(.towardZero):
      guard let value = I(exactly: d) else { throw outOfRange(node, site) }
      return value
    case .string(let text):
      let digits = DurationText.trimmed(text)
      var body = digits.utf8[...]
      if let sign = body.first, sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") {
        body = body.dropFirst()
      }
      guard !body.isEmpty, body.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else {
        throw mismatch(node, site)
      }
      // The text is well-formed, so a failure here can only be the range.
      guard let value = I(digits, radix: 10) else { throw outOfRange(node, site) }
      return value
    default:
      throw mismatch(node, site)
    }
  }

  static func floatingPoint<F: BinaryFloatingPoint>(_ type: F.Type, _ node: SettingValue, _ site: Site)
    throws(StrataError) -> F
  {
    let double: Double
    switch node.kind {
    case .double(let d): double = d
    case .integer(let i): double = Double(i)
    case .unsignedInteger(let u): double = Double(u)
    case .string(let text):
      let trimmed = String(DurationText.trimmed(text))
      guard isDecimalNumber(trimmed), let d = Double(trimmed) else { throw mismatch(node, site) }
      double = d
    default:
      throw mismatch(node, site)
    }
    // Rounding to the nearest representable value is what a literal in code would do; overflowing to
    // infinity is not.
    let value = F(double)
    if (value.isInfinite && double.isFinite) || (double.isInfinite && !isNative(node)) {
      throw outOfRange(node, site)
    }
    return value
  }

  static func bool(_ node: SettingValue, _ site: Site) throws(StrataError) -> Bool {
    switch node.kind {
    case .bool(let b): return b
    case .integer(0): return false
    case .integer(1): return true
    case .string(let text):
      switch DurationText.trimmed(text).lowercased() {
      case "true", "yes", "on", "1": return true
      case "false", "no", "off", "0": return false
      default: throw mismatch(node, site)
      }
    default:
      throw mismatch(node, site)
    }
  }

  static func string(_ node: SettingValue, _ site: Site) throws(StrataError) -> String {
    switch node.kind {
    case .string(let s): s
    case .integer(let i): String(i)
    case .unsignedInteger(let u): String(u)
    case .double(let d): String(d)
    case .bool(let b): b ? "true" : "false"
    default: throw mismatch(node, site)
    }
  }

  static func date(_ node: SettingValue, _ site: Site) throws(StrataError) -> Date {
    switch node.kind {
    case .date(let d): return d
    case .string(let text):
      let trimmed = String(DurationText.trimmed(text))
      // The default ISO 8601 style also reads fractional seconds and numeric offsets.
      if let date = ISODateText.parse(trimmed) { return date }
      throw mismatch(node, site)
    default:
      throw mismatch(node, site)
    }
  }

  static func data(_ node: SettingValue, _ site: Site) throws(StrataError) -> Data {
    switch node.kind {
    case .data(let d): return d
    case .string(let text):
      guard let data = Data(base64Encoded: String(DurationText.trimmed(text))) else {
        throw mismatch(node, site)
      }
      return data
    default:
      throw mismatch(node, site)
    }
  }

  /// A URL with a scheme, or a path as a file URL: an absolute one as written, a relative one (with a
  /// slash: `certs/server.pem`, `./x`, `../x`) relative to the directory of the file that set it
  /// (`/etc/app/app.ini` gives `/etc/app/certs/server.pem`), or, set by a variable or an option, to the
  /// working directory. URL text with whitespace is refused even though `URL(string:)` would
  /// percent-encode it, because it is not a URL as written; paths may hold spaces. Control characters
  /// are refused in both.
  static func url(_ node: SettingValue, _ site: Site) throws(StrataError) -> URL {
    guard case .string(let text) = node.kind else { throw mismatch(node, site) }
    let trimmed = String(DurationText.trimmed(text))
    guard !trimmed.isEmpty, !trimmed.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F })
    else { throw mismatch(node, site) }
    if trimmed.hasPrefix("/") { return URL(filePath: trimmed, directoryHint: .inferFromPath) }
    let scheme = URL(string: trimmed)?.scheme
    if scheme != nil || trimmed.contains("://") {
      guard let url = URL(string: trimmed), scheme?.isEmpty == false,
        !trimmed.unicodeScalars.contains(where: { $0.properties.isWhitespace })
      else { throw mismatch(node, site) }
      return url
    }
    // A relative path says so with a slash: `example.com` is more likely a host without its scheme.
    guard trimmed.contains("/") else {
      throw mismatch(
        node, site, note: "a URL needs a scheme; a path relative to the file, a slash: ./\(trimmed)")
    }
    guard let base = relativeBase(of: node.origin) else {
      throw mismatch(node, site, note: "a relative path needs a file to be relative to")
    }
    return URL(filePath: joinPath(base, trimmed), directoryHint: .inferFromPath).standardized
  }

  /// The directory a relative path set at `origin` is relative to: the file's, or the working
  /// directory for a variable or an option (`nil` for a remote source).
  private static func relativeBase(of origin: Origin) -> String? {
    let workingDirectory = FileManager.default.currentDirectoryPath
    switch origin {
    case .file(let path, _, _):
      let directory = directoryPart(of: path)
      return directory.hasPrefix("/") ? directory : joinPath(workingDirectory, directory)
    case .environment, .commandLine, .codeDefault, .runtime: return workingDirectory
    case .remote: return nil
    }
  }

  static func duration(_ node: SettingValue, _ site: Site) throws(StrataError) -> Duration {
    switch node.kind {
    case .string(let text):
      do {
        return try DurationText.parseChecked(text)
      } catch .outOfRange {
        throw outOfRange(node, site)
      } catch {
        throw mismatch(node, site, note: durationForms)
      }
    case .integer(let seconds):
      return .seconds(seconds)
    case .double(let seconds) where seconds.isFinite:
      // `String(1.5)` is `1.5`; shapes such as `1e-07` are not duration text and are refused.
      guard let duration = DurationText.parse(String(seconds) + "s") else {
        throw mismatch(node, site, note: durationForms)
      }
      return duration
    default:
      throw mismatch(node, site, note: durationForms)
    }
  }

  /// What a duration looks like, for messages about one that is not.
  static let durationForms =
    "write it as 30s, 250ms or 1h30m, with units d, h, m, s, ms, us, ns; a bare number is seconds"

  // MARK: - Messages

  /// `expected Int for server.port, found "80a"`, located at the node's origin.
  static func mismatch(
    _ node: SettingValue, _ site: Site, note: String? = nil, code: StrataError.Code = .typeMismatch
  ) -> StrataError {
    var message = "expected \(site.typeName) for \(site.key), found \(found(node))"
    if let note { message += " (\(note))" }
    return error(code, message, at: node.origin)
  }

  static func outOfRange(_ node: SettingValue, _ site: Site) -> StrataError {
    mismatch(node, site, note: "out of range", code: .invalidValue)
  }

  /// An error located at an origin: file, line and column for files, `env:NAME` for variables.
  static func error(_ code: StrataError.Code, _ message: String, at origin: Origin) -> StrataError {
    switch origin {
    case .file(let path, let line, let column):
      StrataError(code, message, path: path, line: line, column: column)
    case .environment, .commandLine, .remote:
      StrataError(code, message, path: origin.description)
    case .codeDefault, .runtime:
      StrataError(code, message)
    }
  }

  /// How a found value reads in a message: strings quoted, scalars as literals, containers by kind.
  static func found(_ node: SettingValue) -> String {
    switch node.kind {
    case .string(let s): quoted(s)
    case .integer(let i): String(i)
    case .unsignedInteger(let u): String(u)
    case .double(let d): String(d)
    case .bool(let b): b ? "true" : "false"
    case .date(let d): "a date (\(ISODateText.format(d)))"
    case .data(let d): "data (\(d.count) bytes)"
    case .array: "an array"
    case .table: "a table"
    }
  }

  /// Quotes text for a one-line message, escaping what would break the line and shortening long text
  /// (old blob-style values can be kilobytes).
  private static func quoted(_ s: String) -> String {
    var out = "\""
    for (count, scalar) in s.unicodeScalars.enumerated() {
      if count == 80 {
        out += "…"
        break
      }
      switch scalar {
      case "\"": out += "\\\""
      case "\\": out += "\\\\"
      case "\n": out += "\\n"
      case "\t": out += "\\t"
      case "\r": out += "\\r"
      case _ where scalar.value < 0x20 || scalar.value == 0x7F:
        out += "\\u{" + String(scalar.value, radix: 16) + "}"
      default: out.unicodeScalars.append(scalar)
      }
    }
    return out + "\""
  }

  // MARK: - Helpers

  /// Plain decimal notation: `12`, `-0.25`, `1e3`, `.5`. Not `nan`, `inf` or hexadecimal, which
  /// `Double(_:)` would accept but which in a configuration file are almost always mistakes.
  private static func isDecimalNumber(_ text: String) -> Bool {
    var bytes = text.utf8[...]
    func digits() -> Int {
      let count = bytes.prefix { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }.count
      bytes = bytes.dropFirst(count)
      return count
    }
    if bytes.first == UInt8(ascii: "+") || bytes.first == UInt8(ascii: "-") { bytes = bytes.dropFirst() }
    var mantissa = digits()
    if bytes.first == UInt8(ascii: ".") {
      bytes = bytes.dropFirst()
      mantissa += digits()
    }
    guard mantissa > 0 else { return false }
    if bytes.first == UInt8(ascii: "e") || bytes.first == UInt8(ascii: "E") {
      bytes = bytes.dropFirst()
      if bytes.first == UInt8(ascii: "+") || bytes.first == UInt8(ascii: "-") { bytes = bytes.dropFirst() }
      guard digits() > 0 else { return false }
    }
    return bytes.isEmpty
  }

  private static func isNative(_ node: SettingValue) -> Bool {
    if case .double = node.kind { return true }
    return false
  }
}
