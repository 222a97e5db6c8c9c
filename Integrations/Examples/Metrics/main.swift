import Strata
import StrataMetrics

// The store's reloads, failures, rejected values and pending restarts as swift-metrics counters and
// gauges. Bootstrap a backend first (`MetricsSystem.bootstrap(…)` with Prometheus, StatsD, OTel…): with
// none, swift-metrics drops them.

/// The settings of the section "greeting".
struct GreetingSettings: SettingsGroup {
  @Setting var name = "world"
}

let store = SettingsStore(app: "greeter")
let greeting = GreetingSettings(store: store)
let metrics = StoreMetrics(dimensions: [("store", "greeter")])  // to MetricsSystem.factory
print("hello, \(greeting.name)")
await withDiscardingTaskGroup { group in
  group.addTask { await store.run() }  // watches the files until the task is cancelled
  group.addTask { await metrics.run(store: store) }  // until cancelled or store.shutdown()
  group.addTask {
    for await name in greeting.$name.changes { print("hello, \(name)") }
  }
}
