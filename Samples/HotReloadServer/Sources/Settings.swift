import Strata

/// Where the server listens; changing these needs a restart.
final class ListenSettings: SettingsGroup, @unchecked Sendable {
  @Setting(traits: .restartRequired, help: "Address to listen on (loopback by default)") var host =
    "127.0.0.1"
  @Setting(traits: .restartRequired, help: "TCP port; 0 picks a free one", validation: .range(0...65535))
  var port = 8080
}

/// What `GET /` answers.
final class GreetingSettings: SettingsGroup, @unchecked Sendable {
  @Setting(help: "The greeting word") var message = "Hello"
  @Setting(help: "Who is greeted") var name = "world"
}

/// Request limits, applied to the next request after an edit.
final class LimitSettings: SettingsGroup, @unchecked Sendable {
  @Setting(help: "Largest request body accepted, in bytes", validation: .range(0...10_485_760))
  var maxBodyBytes = 1024
}

/// The admin token (never shown by /config).
final class AdminSettings: SettingsGroup, @unchecked Sendable {
  @Setting(traits: .secret, help: "Bearer token for POST /echo") var token = "change-me"
}
