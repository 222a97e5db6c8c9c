import Logging
import Strata

/// Where Hummingbird listens; it reads these through `ApplicationConfiguration(reader:)`, and a change
/// applies at the next start.
struct HTTPSettings: SettingsGroup {
  @Setting(traits: .restartRequired, help: "Address to listen on") var host = "127.0.0.1"
  @Setting(traits: .restartRequired, help: "TCP port; 0 picks a free one", validation: .range(0...65535))
  var port = 8080
}

/// What `GET /` answers; an edit shows in the next response.
struct GreetingSettings: SettingsGroup {
  @Setting(help: "The greeting word") var message = "Hello"
  @Setting(help: "Who is greeted") var name = "world"
}

/// How many requests a second `GET /` serves before answering 429.
struct RateLimitSettings: SettingsGroup {
  @Setting(help: "Requests per second", validation: .range(1...1_000_000)) var requestsPerSecond = 50
}

/// The log level, followed live.
struct LogSettings: SettingsGroup {
  @Setting(help: "trace, debug, info, notice, warning, error or critical") var level: Logger.Level = .info
}

/// The admin token for `GET /admin` (never shown by `/config` or in logs).
struct AdminSettings: SettingsGroup {
  @Setting(traits: .secret, help: "Bearer token for GET /admin") var token = "change-me"
}
