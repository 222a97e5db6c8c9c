import Strata
import Testing

/// The type of the `SettingCoding` sample: one the program does not own (not Codable, no raw value).
struct HostPort: Sendable, Equatable {
  var host: String
  var port: Int
}

extension HostPort {
  /// `HOST:PORT`, or `nil` for any other text.
  init?(parsing text: String) {
    let parts = text.split(separator: ":", omittingEmptySubsequences: false)
    guard parts.count == 2, !parts[0].isEmpty, let port = Int(parts[1]) else { return nil }
    self.init(host: String(parts[0]), port: port)
  }
}

// snippet: SettingCoding
extension SettingCoding where Value == HostPort {
  static let hostPort = SettingCoding.text(expected: "HOST:PORT") {
    HostPort(parsing: $0)
  } format: {
    "\($0.host):\($0.port)"
  }
}
struct ProxySettings: SettingsGroup {
  @Setting(coding: .hostPort) var upstream = HostPort(host: "localhost", port: 8080)
}
// snippet: end
