/// Which keys say by their name that they hold a secret, for tools that have no schema to ask
/// (`config-dump` without `--schema`), as Spring Boot's actuator sanitizes `password`, `secret`, `key`,
/// `token` and `credentials`.
///
/// The last name of the key is split into words (at camelCase, `_`, `-`, `.` and spaces, lower-cased).
/// It names a secret when a word is `password`, `passwd`, `pwd`, `passphrase`, `secret`, `token`,
/// `credential`, `credentials`, `apikey`, `privatekey` or `secretkey`, when `key` follows `api`,
/// `private`, `secret`, `access`, `signing`, `encryption` or `master` (`api_key`, `privateKey`), or when
/// the last word is `auth` (npm's `_auth`, `basicAuth`; not `authMethod`). So `db.password`,
/// `adminToken`, `aws.secret_access_key`, `API-KEY` and `proxy_auth` are secret; `keyboard`, `monkey`,
/// `keyFile`, `tokenizer` and `auth_method` are not.
package enum SecretNames {
  static let words: Set<String> = [
    "password", "passwd", "pwd", "passphrase", "secret", "secrets", "token", "credential", "credentials",
    "apikey", "privatekey", "secretkey",
  ]
  static let keyQualifiers: Set<String> = [
    "api", "private", "secret", "access", "signing", "encryption", "master",
  ]

  /// Whether `key`'s last name says it holds a secret.
  package static func isSecret(key: String) -> Bool {
    let parts = wordsOf(SettingKey.lastName(of: key))
    if parts.contains(where: words.contains) || parts.last == "auth" { return true }
    return zip(parts, parts.dropFirst()).contains { keyQualifiers.contains($0) && $1 == "key" }
  }

  /// `secretAccessKey` → `secret`, `access`, `key`; `API_KEY` → `api`, `key`.
  static func wordsOf(_ name: String) -> [String] {
    var words: [String] = []
    var current = ""
    var previous: Character?
    for character in name {
      if !character.isLetter && !character.isNumber {
        if !current.isEmpty { words.append(current) }
        current = ""
      } else if character.isUppercase, let previous, previous.isLowercase || previous.isNumber {
        words.append(current)
        current = String(character)
      } else {
        current.append(character)
      }
      previous = character
    }
    if !current.isEmpty { words.append(current) }
    return words.map { $0.lowercased() }
  }
}
