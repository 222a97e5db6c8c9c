import Logging
import Strata

/// Where Vapor listens unless `serve --hostname`/`--port` say otherwise; a change applies at the next
/// start.
struct HTTPSettings: SettingsGroup {
  @Setting(traits: .restartRequired, help: "Address to listen on") var hostname = "127.0.0.1"
  @Setting(traits: .restartRequired, help: "TCP port; 0 picks a free one", validation: .range(0...65535))
  var port = 8080
}

/// What `GET /` answers; an edit shows in the next response.
struct GreetingSettings: SettingsGroup {
  @Setting(help: "The greeting word") var message = "Hello"
  @Setting(help: "Who is greeted") var name = "world"
}

/// The log level, followed live unless `--log` or `LOG_LEVEL` pins one.
struct LogSettings: SettingsGroup {
  @Setting(help: "trace, debug, info, notice, warning, error or critical") var level: Logger.Level = .info
}
