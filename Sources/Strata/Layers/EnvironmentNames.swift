/// How setting keys map to environment variable names, and back.
///
/// A key's generated name is `PREFIX_` followed by its names (see ``SettingKey``), camelCase split into
/// words, every character that is not a letter or a digit turned into `_`, all upper-cased:
/// `server.maxConnections` → `DEMO_SERVER_MAX_CONNECTIONS`, `www."listen.owner"` → `DEMO_WWW_LISTEN_OWNER`. A
/// variable that matches no generated name maps by `__` separators: `DEMO_DB__POOL_SIZE` →
/// `db.pool_size`.
public enum EnvironmentNames {
  /// The prefix for an app name: upper-cased, with `-` and `.` turned into `_` (`my-app` → `MY_APP`).
  public static func prefix(forApp app: String) -> String {
    screamingSnake(app)
  }

  /// The variable name that overrides `key`.
  public static func variableName(forKey key: String, prefix: String) -> String {
    prefix + "_" + SettingKey.names(in: key).map(screamingSnake).filter { !$0.isEmpty }.joined(separator: "_")
  }

  /// The key a variable maps to when it matches no known key: the part after `PREFIX_`, split at `__`,
  /// each part lower-cased. `nil` when the variable does not start with `PREFIX_` or is empty after it.
  public static func fallbackKey(forVariable variable: String, prefix: String) -> String? {
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
}
