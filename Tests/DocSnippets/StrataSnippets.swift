// snippet: overview
import Strata

struct ServerSettings: SettingsGroup {  // section "server"
  @Setting(help: "Address to listen on") var host = "127.0.0.1"
  @Setting(traits: .restartRequired, validation: .range(1...65535)) var port = 8080
}

func start() throws {
  let store = SettingsStore(app: "demo")
  let server = ServerSettings(store: store)  // every group first,
  try store.requireAll()  // then check the required settings
  print(server.port)  // 8443
  print(server.$port.origin)  // /etc/demo/demo.ini:6:8
}
// snippet: end
