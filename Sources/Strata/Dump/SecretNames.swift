/// Which keys say by their name that they hold a secret, for tools that have no schema to ask
/// (`config-dump` without `--schema`), as Spring Boot's actuator sanitizes keys that *end* in
/// `password`, `secret`, `key`, `token` or `credentials`.
///
/// The last name of the key is split into words (at camelCase, `_`, `-`, `.` and spaces, lower-cased),
/// and only its **last word** counts, so that a name that is about a secret without holding one
/// (samba's `unix password sync`, `passwd program`, sssd's `passwd_files`, `ldap_pwd_policy`) is shown.
/// The key is secret when that last word is
/// - `password`, `passphrase`, `secret`, `secrets`, `token`, `credential`, `credentials`, `auth`, or one
///   of the joined forms `apikey`, `privatekey`, `secretkey` (`db_password`, `adminToken`, `_auth`,
///   `wsrep_sst_auth`, `APIKey`);
/// - `key` right after `api`, `private`, `secret`, `access`, `signing`, `encryption` or `master`
///   (`api_key`, `privateKey`, `aws_secret_access_key`; not `sort_key`, `primaryKey`);
/// - `passwd` or `pwd` when the key names something before it (`smtp.passwd`, `db_pwd`): a key that is
///   nothing but `passwd` or `pwd` names the user database (nsswitch's `passwd:`) or the working
///   directory (`PWD`), not a secret.
///
/// So `keyboard`, `monkey`, `keyFile`, `tokenizer`, `auth_method`, `password.minLength` and
/// `passwordless` are not secret.
package enum SecretNames {
  /// Last words that make a key secret wherever they stand.
  static let words: Set<String> = [
    "password", "passwords", "passphrase", "secret", "secrets", "token", "credential",
    "credentials", "auth", "apikey", "privatekey", "secretkey",
  ]
  /// Last words that make a key secret when the key names something before them.
  static let qualifiedWords: Set<String> = ["passwd", "pwd"]
  /// The words that make a following `key` a secret one.
  static let keyQualifiers: Set<String> = [
    "api", "private", "secret", "access", "signing", "encryption", "master",
  ]

  /// Whether `key`'s last name says it holds a secret (see the rule above).
  package static func isSecret(key: String) -> Bool {
    let names = SettingKey.names(in: key)
    let parts = wordsOf(names.last ?? key)
    guard let last = parts.last else { return false }
    if words.contains(last) { return true }
    if qualifiedWords.contains(last) { return parts.count > 1 || names.count > 1 }
    return last == "key" && parts.count > 1 && keyQualifiers.contains(parts[parts.count - 2])
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
