import Strata
import StrataYAML

// /etc/greeter/greeter.yaml (and greeter.conf.d/*.yaml drop-ins) beside the other formats, each value
// with its line and column.

/// The settings of the section "greeting".
struct GreetingSettings: SettingsGroup {
  @Setting var name = "world"
}

let store = SettingsStore(app: "greeter", formats: FormatRegistry.standard.registering(YAMLFormat()))
let greeting = GreetingSettings(store: store)
print("hello, \(greeting.name) (\(greeting.$name.origin))")  // /etc/greeter/greeter.yaml:2:9
await withDiscardingTaskGroup { group in
  group.addTask { await store.run() }  // watches the files until the task is cancelled
  group.addTask {
    for await name in greeting.$name.changes { print("hello, \(name)") }
  }
}
