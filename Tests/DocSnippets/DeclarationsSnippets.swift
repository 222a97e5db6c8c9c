// snippet: required
import Foundation  // URL
import Strata

struct DatabaseSettings: SettingsGroup {
  @Setting(help: "Where the database is") var url: URL  // required
  @Setting var kind: DatabaseKind  // required
  @Setting var replicaURL: URL?  // nil when unset
  @Setting var poolSize = 4
}
// snippet: end

/// Declarations.md.
enum Declarations {
  // snippet: keys
  struct ServerSettings: SettingsGroup {
    static var section: String { "server" }
    @Setting(key: "allowed_origins") var allowedOrigins: [String] = []
    @Setting var tls = TLSOptions()  // a Codable struct: a nested table
  }
  // snippet: end

  struct RenamedSettings: SettingsGroup {
    static var section: String { "server" }
    // snippet: renamed
    @Setting(key: "max_connections", aliases: ["maxConn"]) var maxConnections = 1024
    // snippet: end
  }

  struct ValidatedSettings: SettingsGroup {
    static var section: String { "server" }
    // snippet: validation
    @Setting(validation: .range(1...65535)) var port = 8080
    @Setting(validation: SettingValidation("must be even") { $0 % 2 == 0 }) var workers = 4
    // snippet: end
  }

  // snippet: rules
  struct TLSSettings: SettingsGroup {
    @Setting var enabled = false
    @Setting var certificatePath: String? = nil
    @Setting var keyPath: String? = nil
    static var rules: [SettingValidation<Self>] {
      [
        SettingValidation("TLS on => certificate and key paths set") {
          !$0.enabled || ($0.certificatePath != nil && $0.keyPath != nil)
        }
      ]
    }
  }
  // snippet: end

  // snippet: ByteSize
  struct UploadSettings: SettingsGroup {
    @Setting var maxBody = ByteSize(bytes: 10 << 20)
    @Setting var spoolThreshold = ByteSize(bytes: 512 << 10)
  }
  // snippet: end

  struct HelpedSettings: SettingsGroup {
    static var section: String { "server" }
    @Setting(help: "The port to listen on") var port = 8080
  }

  static func readHelp(_ server: HelpedSettings) {
    // snippet: help-read
    print(server.$port.help ?? "")  // "The port to listen on"
    // snippet: end
  }

  static func requireAll() throws {
    // snippet: require-all
    let store = SettingsStore(app: "demo")
    let database = DatabaseSettings(store: store)  // every group first,
    try store.requireAll()  // then one error listing every missing required setting
    print(database.url)  // safe: requireAll did not throw
    // snippet: end
  }
}
