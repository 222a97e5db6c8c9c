import Foundation  // exit, FileHandle
import Strata

/// The settings of the section "server" (the type name without "Settings").
struct ServerSettings: SettingsGroup {
  @Setting(help: "Address to listen on") var host = "127.0.0.1"
  @Setting(help: "Port to listen on", validation: .range(1...65535)) var port = 8080
  @Setting(help: "What to answer") var greeting: String  // no default: some layer must set it
}

// /usr/lib/hello, /etc/hello and its drop-ins, ~/.config/hello, HELLO_* variables, --key value
// options: each layer overrides the ones before it.
let store = SettingsStore(app: "hello", arguments: Array(CommandLine.arguments.dropFirst()))
let server = ServerSettings(store: store)  // first every group, so that requireAll knows its settings
do {
  try store.requireAll()  // then one error naming every missing required setting
} catch {
  FileHandle.standardError.write(Data("error: \(error)\n".utf8))
  exit(1)
}
for problem in store.diagnostics {  // an unknown key, a value of the wrong type, …
  FileHandle.standardError.write(Data("\(problem)\n".utf8))
}

print("\(server.greeting), listening on \(server.host):\(server.port)")
print("server.port = \(server.port) from \(server.$port.origin)")
