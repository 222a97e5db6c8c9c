/// How setting keys map to environment variable names, and back.
///
/// A key's generated name is `PREFIX_` followed by its names (see ``SettingKey``), camelCase split into
/// words, every character that is not a letter or a digit turned into `_`, all upper-cased:
/// `server.maxConnections` → `DEMO_SERVER_MAX_CONNECTIONS`, `www."listen.owner"` → `DEMO_WWW_LISTEN_OWNER`. A
/// variable that matches no generated name maps by `__` separators: `DEMO_DB__POOL_SIZE` →
/// `db.pool_size`.
package enum EnvironmentNames {
  /// The prefix for an app name: upper-cased, with `-` and `.` turned into `_` (`my-app` → `MY_APP`).
  package static func prefix(forApp app: String) -> String {
    screamingSnake(app)
  }

  /// The variable name that overrides `key`.
  package static func variableName(forKey key: String, prefix: String) -> String {
    prefix + "_" + unprefixedName(forKey: key)
  }

  /// The generated name without `PREFIX_`: `server.maxConnections` → `SERVER_MAX_CONNECTIONS`.
  static func unprefixedName(forKey key: String) -> String {
    // An ASCII key without quoted names in one pass: a dot is a separator like any other punctuation,
    // so the whole key converts as its names joined by `_` do (a registration computes this per key).
    if !key.utf8.contains(UInt8(ascii: "\"")), let name = asciiScreamingSnake(key) { return name }
    return SettingKey.names(in: key).map(screamingSnake).filter { !$0.isEmpty }.joined(separator: "_")
  }

  /// The key a variable maps to when it matches no known key: the part after `PREFIX_`, split at `__`,
  /// each part lower-cased. `nil` when the variable does not start with `PREFIX_` or is empty after it.
  package static func fallbackKey(forVariable variable: String, prefix: String) -> String? {
    let head = prefix + "_"
    guard variable.hasPrefix(head), variable.count > head.count else { return nil }
    let rest = variable.dropFirst(head.count)
    let parts = rest.split(separator: "__", omittingEmptySubsequences: false).map { $0.lowercased() }
    guard parts.allSatisfy({ !$0.isEmpty }) else { return nil }
    return SettingKey.join(parts)
  }

  /// `serverMaxConnections.tls-cert` → `SERVER_MAX_CONNECTIONS_TLS_CERT`; `TLSCert` → `TLS_CERT`;
  /// `http2Port` → `HTTP2_PORT`; `./package.json` → `PACKAGE_JSON`.
  static func screamingSnake(_ text: String) -> String {
    if let ascii = asciiScreamingSnake(text) { return ascii }
    let chars = Array(text)
    var out = ""
    for (i, c) in chars.enumerated() {
      if !c.isLetter && !c.isNumber {
        if !out.isEmpty && !out.hasSuffix("_") { out.append("_") }
        continue
      }
      if c.isUppercase, i > 0, !out.hasSuffix("_") {
        let previous = chars[i - 1]
        let next: Character? = i + 1 < chars.count ? chars[i + 1] : nil
        // A word starts at an upper-case letter after a lower-case letter or digit (maxConnections), or
        // at the last capital of an acronym followed by lower case (TLSCert → TLS_CERT).
        if previous.isLowercase || previous.isNumber || (previous.isUppercase && next?.isLowercase == true) {
          out.append("_")
        }
      }
      out += c.uppercased()
    }
    if out.hasSuffix("_") { out.removeLast() }
    return out
  }

  /// ``screamingSnake(_:)`` over the bytes of an ASCII name (the common case, and the one an index of a
  /// large file computes for every name); `nil` for any other text.
  private static func asciiScreamingSnake(_ text: String) -> String? {
    var text = text
    return text.withUTF8 { bytes -> String? in
      func isUpper(_ b: UInt8) -> Bool { b >= 0x41 && b <= 0x5A }
      func isLower(_ b: UInt8) -> Bool { b >= 0x61 && b <= 0x7A }
      func isDigit(_ b: UInt8) -> Bool { b >= 0x30 && b <= 0x39 }
      var out: [UInt8] = []
      out.reserveCapacity(bytes.count + 4)
      for i in bytes.indices {
        let c = bytes[i]
        guard c < 0x80 else { return nil }
        guard isUpper(c) || isLower(c) || isDigit(c) else {
          if let last = out.last, last != 0x5F { out.append(0x5F) }
          continue
        }
        if isUpper(c), i > 0, let last = out.last, last != 0x5F {
          let previous = bytes[i - 1]
          let nextIsLower = i + 1 < bytes.count && isLower(bytes[i + 1])
          if isLower(previous) || isDigit(previous) || (isUpper(previous) && nextIsLower) { out.append(0x5F) }
        }
        out.append(isLower(c) ? c - 0x20 : c)
      }
      if out.last == 0x5F { out.removeLast() }
      return String(decoding: out, as: UTF8.self)
    }
  }
}
