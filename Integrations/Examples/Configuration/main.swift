import Configuration
import Strata
import StrataConfiguration

// swift-configuration's ConfigReader over Strata's layers: a library that takes a ConfigReader (such as
// Hummingbird's `ApplicationConfiguration(reader:)`) reads /etc/greeter/greeter.ini, the drop-ins,
// GREETER_* variables and --greeting.name options, with Strata's origins and live reload.

let store = SettingsStore(app: "greeter")
let config = ConfigReader(provider: StrataConfigProvider(store: store))
print("hello, \(config.string(forKey: "greeting.name", default: "world"))")
await withDiscardingTaskGroup { group in
  group.addTask { await store.run() }  // watches the files until the task is cancelled
  group.addTask {
    try? await config.watchString(forKey: "greeting.name", default: "world") { names in
      for await name in names { print("hello, \(name)") }
    }
  }
}
