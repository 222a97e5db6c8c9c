import Foundation
import Testing

@testable import Strata

/// Secrets of every kind, from every source: a file (JSON, INI), an environment variable, a key-per-file
/// volume, a program write, a code default; one that does not convert, one that fails validation, one
/// that changes while the program runs (restart required).
struct VaultSettings: SettingsGroup {
  static var section: String { "vault" }
  @Setting var host = "localhost"
  @Setting(traits: .secret) var password = ""
  @Setting(traits: .secret) var iniToken = ""
  @Setting(traits: .secret) var envToken = ""
  @Setting(traits: .secret) var mounted = ""
  @Setting(traits: .secret) var apiKey = 0
  @Setting(traits: .secret, validation: .range(1_000...9_999)) var pin = 1_234
  @Setting(traits: [.secret, .restartRequired]) var signingKey = ""
  @Setting(traits: .secret) var fallback = "default-S3CRET-07"
  @Setting(traits: .secret) var credentials = VaultCredentials()
}

/// A secret stored as a nested table.
struct VaultCredentials: Codable, Sendable, Equatable {
  var user = "admin"
  var token = ""
}

/// The secret values the fixture uses: none may appear in any text the library produces.
enum VaultSecrets {
  static let json = "pw-json-S3CRET-01"
  static let ini = "ini-S3CRET-02"
  static let environment = "env-S3CRET-03"
  static let mounted = "kpf-S3CRET-04"
  static let signing = "sign-S3CRET-05"
  static let signingChanged = "sign-S3CRET-06"
  static let codeDefault = "default-S3CRET-07"
  static let inBrokenJSON = "pwbrokenS3CRET08"
  static let written = "written-S3CRET-09"
  static let duplicate = "dup-S3CRET-10"
  /// Not a secret (no setting declares `vault.pasword`), but its variable is reported as unknown.
  static let misspelledVariable = "typo-value-11"
  static let inBrokenINI = "ini-broken-S3CRET-12"
  static let nested = "nested-S3CRET-13"
  static let notAnInt = "s3cr3t-not-an-int"
  static let invalidPin = 987_654_321
  static let invalidWrite = 123_456_789

  static var all: [String] {
    [
      json, ini, environment, mounted, signing, signingChanged, codeDefault, inBrokenJSON, written, duplicate,
      inBrokenINI, nested, notAnInt, "\(invalidPin)", "\(invalidWrite)",
    ]
  }

  /// The part every secret text shares, to catch a secret cut short (`'pwbrokenS3CRET0…'`).
  static let markers = ["S3CRET", "s3cr3t", "987654", "123456789", "555444"]

  /// The environment of the store and of `config-dump`.
  static let variables = [
    "LEAK_VAULT_ENV_TOKEN": environment,
    "LEAK_VAULT_PASWORD": misspelledVariable,  // unknown: reported, with a did-you-mean
  ]
}

/// A root directory with the app `leak`: `/etc/leak/leak.json` and `.ini`, a Secret volume at
/// `/run/secrets`, a user directory for writes, and the store over all of it plus the environment.
struct VaultFixture {
  let root: String
  var systemJSON: String { root + "/etc/leak/leak.json" }
  var systemINI: String { root + "/etc/leak/leak.ini" }
  var userFile: String { root + "/home/user/.config/leak/leak.json" }
  let store: SettingsStore
  let vault: VaultSettings

  static func json(password: String, signingKey: String) -> String {
    """
    {"vault": {"host": "db.example", "password": "\(VaultSecrets.duplicate)", "password": "\(password)",
      "signingKey": "\(signingKey)", "pin": \(VaultSecrets.invalidPin),
      "credentials": {"user": "svc", "token": "\(VaultSecrets.nested)"}}}
    """
  }

  init(root: String) throws {
    self.root = root
    try write(
      Self.json(password: VaultSecrets.json, signingKey: VaultSecrets.signing),
      to: root + "/etc/leak/leak.json")
    try write(
      "[vault]\niniToken = \(VaultSecrets.ini)\napiKey = \(VaultSecrets.notAnInt)\n",
      to: root + "/etc/leak/leak.ini")
    try write(VaultSecrets.mounted + "\n", to: root + "/run/secrets/vault.mounted")
    try FileManager.default.createDirectory(
      atPath: root + "/home/user/.config/leak", withIntermediateDirectories: true)
    let layout = StandardLayout(
      app: "leak", root: root,
      environment: VaultSecrets.variables.merging(["HOME": "/home/user"]) { a, _ in a })
    var layers = layout.layers
    layers.insert(KeyPerFileLayer(scope: .system, directory: "/run/secrets"), at: layers.count - 1)
    store = SettingsStore(
      layers: layers, options: layout.options(), writeTarget: .file("/home/user/.config/leak/leak.json"))
    vault = VaultSettings(store: store)
  }

  /// The arguments that make `config-dump` load the same layers, typed by the exported schema.
  func dumpArguments(schema: String) -> [String] {
    ["--root", root, "--app", "leak", "--key-per-file", "/run/secrets", "--schema", schema]
  }
}

/// Texts collected from everything that leaves the library, each with a label saying where it came from.
struct LeakSurvey {
  private(set) var texts: [(label: String, text: String)] = []

  mutating func add(_ label: String, _ text: String) { texts.append((label, text)) }

  /// `String(describing:)`, `String(reflecting:)` and `dump` of a value.
  mutating func describe(_ label: String, _ value: Any) {
    add(label + " description", String(describing: value))
    add(label + " debugDescription", String(reflecting: value))
    var dumped = ""
    dump(value, to: &dumped)
    add(label + " dump", dumped)
  }

  /// `label: secret, …` for each text that shows a secret (or the start of one).
  var leaks: [String] {
    texts.compactMap { label, text in
      let found = (VaultSecrets.all + VaultSecrets.markers).filter { text.contains($0) }
      return found.isEmpty ? nil : "\(label): \(found.joined(separator: ", "))"
    }
  }
}
