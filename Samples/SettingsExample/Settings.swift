import Strata

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// How much the demo server logs.
enum LogLevel: String, Codable, Sendable {
  case debug, info, warning, error
}

/// TLS options, stored as a readable nested table (`[server.tls]`).
struct TLSOptions: Codable, Sendable, Equatable {
  var enabled = false
  var certPath = "/etc/demo/tls/cert.pem"
  var keyPath = "/etc/demo/tls/key.pem"
}

/// The `server` section.
struct ServerSettings: SettingsGroup {
  @Setting(help: "Address to listen on") var host = "127.0.0.1"
  @Setting(traits: .restartRequired, help: "TCP port", validation: .range(1...65535)) var port = 8080
  @Setting(help: "Most concurrent connections", validation: .range(1...100_000)) var maxConnections = 1024
  @Setting(help: "Time allowed for one request") var requestTimeout: Duration = .seconds(30)
  @Setting(key: "allowed_origins", help: "Origins allowed by CORS") var allowedOrigins: [String] = []
  @Setting(help: "TLS certificate and key") var tls = TLSOptions()
  @Setting(traits: .secret, help: "Token for the admin API") var adminToken = ""
}

/// The `log` section.
struct LogSettings: SettingsGroup {
  @Setting(help: "Least severe level written") var level: LogLevel = .info
  @Setting(help: "text or json") var format = "text"
}

/// The `database` section.
struct DatabaseSettings: SettingsGroup {
  @Setting(help: "Connection URL") var url = URL(string: "postgres://localhost/demo")!
  @Setting(key: "pool_size", help: "Connections kept open") var poolSize = 5
  @Setting(traits: .secret, help: "Database password") var password: String? = nil
}
