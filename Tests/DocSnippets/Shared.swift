import Strata

// Types the samples use without declaring them, shared by the articles' snippet files.

/// The nested group the samples show as `let limits = LimitSettings()`.
struct LimitSettings: SettingsGroup {
  @Setting var maxConnections = 1024
  @Setting var maxBodyBytes = 1 << 20
}

/// A Codable struct stored as a nested table.
struct TLSOptions: Codable, Sendable, Equatable {
  var enabled = false
  var certificatePath = "/etc/demo/cert.pem"
}

/// A `RawRepresentable` setting type.
enum DatabaseKind: String, Codable, Sendable {
  case postgres, sqlite
}
