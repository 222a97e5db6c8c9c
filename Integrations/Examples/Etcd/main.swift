import Strata
import StrataEtcd

// The files of the layout, then a key prefix of etcd v3 above them: `etcdctl put
// /config/greeter/greeting/name Ada` reaches the program through etcd's watch.

/// The settings of the section "greeting".
struct GreetingSettings: SettingsGroup {
  @Setting var name = "world"
}

let etcd = EtcdLayer(endpoints: ["http://127.0.0.1:2379"], prefix: "/config/greeter/", valueFormat: .string)
let store = SettingsStore(layers: StandardLayout(app: "greeter").layers + [etcd])
let greeting = GreetingSettings(store: store)
print("hello, \(greeting.name) (\(greeting.$name.origin))")
await withDiscardingTaskGroup { group in
  group.addTask { await store.run() }  // reads the prefix, then follows the watch
  group.addTask {
    for await name in greeting.$name.changes { print("hello, \(name) (\(greeting.$name.origin))") }
  }
}
