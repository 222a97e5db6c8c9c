/// How setting keys map to environment variable names, and back.
///
/// A key's generated name is `PREFIX_` followed by its components, camelCase split into words, `.` and
/// `-` turned into `_`, all upper-cased: `server.maxConnections` → `DEMO_SERVER_MAX_CONNECTIONS`. A
/// variable that matches no generated name maps by `__` separators: `DEMO_DB__POOL_SIZE` →
/// `db.pool_size`.
public enum EnvironmentNames {
  /// The prefix for an app name: upper-cased, with `-` and `.` turned into `_` (`my-app` → `MY_APP`).
  public static func prefix(forApp app: String) -> String {
    screamingSnake(app)
  }

  /// The variable name that overrides `key`.
  public static func variableName(forKey key: String, prefix: String) -> String {
    prefix + "_" + screamingSnake(key)
  }

  /// The key a variable maps to when it matches no known key: the part after `PREFIX_`, split at `__`,
  /// each part lower-cased. `nil` when the variable does not start with `PREFIX_` or is empty after it.
  public static func fallbackKey(forVariable variable: String, prefix: String) -> String? {
    let head = prefix + "_"
    guard variable.hasPrefix(head), variable.count > head.count else { return nil }
    let rest = variable.dropFirst(head.count)
    let parts = rest.split(separator: "__", omittingEmptySubsequences: false).map { $0.lowercased() }
    guard parts.allSatisfy({ !$0.isEmpty }) else { return nil }
    return parts.joined(separator: ".")
  }

  /// `serverMaxConnections.tls-cert` → `SERVER_MAX_CONNECTIONS_TLS_CERT`; `TLSCert` → `TLS_CERT`;
  /// `http2Port` → `HTTP2_PORT`.
  static func screamingSnake(_ text: String) -> String {
    let chars = Array(text)
    var out = ""
    for (i, c) in chars.enumerated() {
      if c == "." || c == "-" || c == "_" || c == " " {
        if !out.hasSuffix("_") { out.append("_") }
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
    return out
  }
}
