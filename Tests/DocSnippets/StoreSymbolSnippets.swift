import Strata

/// The samples of the doc comments of `SettingsStore`, `CommandLineLayer` and
/// `StrataError`.
enum StoreSymbols {
  static func makeStore() -> SettingsStore {
    // snippet: SettingsStore
    let store = SettingsStore(app: "myserver")  // /usr/lib, /etc (+ conf.d), ~/.config, MYSERVER_*
    let server = ServerSettings(store: store)
    // snippet: end
    print(server.port)
    return store
  }

  static func commandLine() -> SettingsStore {
    // snippet: CommandLineLayer
    // myserver --server.port 9000 --no-debug --server.allowedOrigins a --server.allowedOrigins b
    let store = SettingsStore(app: "myserver", arguments: Array(CommandLine.arguments.dropFirst()))
    // snippet: end
    return store
  }

  static func errors(bytes: [UInt8]) throws {
    // snippet: StrataError
    do {
      let ini = FormatRegistry.standard.format(named: "ini")!
      let document = try ini.parse(bytes, path: "/etc/demo/demo.ini", options: ParseOptions())
      print(document.root.value(at: "server.port") ?? "not set")
    } catch {
      switch error.code {
      case .syntax: print(error)  // /etc/demo/demo.ini:12:8: expected '=' after key
      case .tooManyValues: print("\(error.location ?? ""): split the file or raise ParseOptions.maxValues")
      default: throw error
      }
    }
    // snippet: end
  }
}
