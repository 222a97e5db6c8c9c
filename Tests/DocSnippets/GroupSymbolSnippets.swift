import Strata

/// The samples of the doc comments of `Setting`, `SettingsGroup`, `SettingRecord` and `SettingTraits`.
enum GroupSymbols {
  enum SettingSample {
    // snippet: Setting
    struct ServerSettings: SettingsGroup {
      @Setting var host = "127.0.0.1"
      @Setting(key: "max_connections", validation: .range(1...100_000)) var maxConnections = 1024
      @Setting(traits: .secret, help: "Token for the admin API") var apiToken = ""
    }
    // snippet: end
  }

  static func group(_ store: SettingsStore) {
    // snippet: SettingsGroup
    struct ServerSettings: SettingsGroup {  // section "server"
      @Setting var host = "127.0.0.1"
      @Setting(traits: .restartRequired) var port = 8080
      let limits = LimitSettings()  // a nested group: section "server.limits"
    }
    let server = ServerSettings(store: store)
    print(server.port)  // typed, cached, safe from any thread
    print(server.$port.origin)  // where the value came from
    // snippet: end
  }

  static func record(_ server: ServerSettings) async {
    // snippet: SettingRecord
    print(server.$port.value)  // 8443
    print(server.$port.origin)  // /etc/demo/demo.ini:6:8
    print(server.$port.key)  // "server.port"
    print(server.$port.environmentName ?? "")  // "DEMO_SERVER_PORT"
    for await port in server.$port.changes { print("now \(port)") }
    // snippet: end
  }

  static func groupChanges(_ server: ServerSettings) async {
    // snippet: GroupChanges
    for await changed in server.changes {
      let (host, port) = server.withConsistentSnapshot { ($0.host, $0.port) }
      print("\(changed.joined(separator: ", ")) changed: now \(host):\(port)")
    }
    // snippet: end
  }
}

// snippet: SettingTraits
extension SettingTraits {
  static let experimental = SettingTraits(rawValue: 1 << 32)
}
struct AdminSettings: SettingsGroup {
  @Setting(traits: [.secret, .restartRequired]) var apiToken = ""
  @Setting(traits: .experimental) var fastPath = false
}
// snippet: end

/// SettingsGroup.rules.
enum RulesSnippet {
  // snippet: Rules
  struct PoolSettings: SettingsGroup {
    @Setting var minConnections = 1
    @Setting var maxConnections = 10
    static var rules: [SettingValidation<Self>] {
      [SettingValidation("minConnections <= maxConnections") { $0.minConnections <= $0.maxConnections }]
    }
  }
  // snippet: end
}

/// SettingsGroup.linked.
enum LinkedSnippet {
  // snippet: Linked
  struct TLSFiles: SettingsGroup {
    @Setting var certificate = ""
    @Setting var privateKey = ""
    static var linked: [[PartialKeyPath<Self>]] { [[\.certificate, \.privateKey]] }
  }
  // snippet: end
}
