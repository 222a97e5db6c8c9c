import Strata

/// Where the server listens; changing these needs a restart.
struct ListenSettings: SettingsGroup {
  @Setting(traits: .restartRequired, help: "Address to listen on (loopback by default)") var host =
    "127.0.0.1"
  @Setting(traits: .restartRequired, help: "TCP port; 0 picks a free one", validation: .range(0...65535))
  var port = 8080
}

/// What `GET /` answers.
struct GreetingSettings: SettingsGroup {
  @Setting(help: "The greeting word") var message = "Hello"
  @Setting(help: "Who is greeted") var name = "world"
}

/// Request limits, applied to the next request after an edit.
struct LimitSettings: SettingsGroup {
  @Setting(help: "Largest request body accepted, in bytes", validation: .range(0...10_485_760))
  var maxBodyBytes = 1024
}

/// The admin token (never shown by /config).
struct AdminSettings: SettingsGroup {
  @Setting(traits: .secret, help: "Bearer token for POST /echo") var token = "change-me"
}
