import Configuration
import Hummingbird
import Logging
import ServiceLifecycle
import Strata
import StrataConfiguration
import StrataEtcd
import StrataLogging
import StrataMetrics
import StrataServiceLifecycle
import StrataYAML
import UnixSignals

/// The samples of the Integrations' doc comments and of the StrataEtcd catalog, compiled here and
/// checked against the documents by `Scripts/check-doc-snippets.py`. Nothing here runs.
enum IntegrationSnippets {
  static func configProvider(router: Router<BasicRequestContext>) -> some ApplicationProtocol {
    // snippet: StrataConfigProvider
    let store = SettingsStore(app: "myserver")
    let reader = ConfigReader(provider: StrataConfigProvider(store: store))
    let app = Application(
      router: router, configuration: ApplicationConfiguration(reader: reader.scoped(to: "http")))
    // snippet: end
    return app
  }

  static func yamlRegister() {
    // snippet: yaml-register
    let formats = FormatRegistry.standard.registering(YAMLFormat())
    let store = SettingsStore(app: "demo", formats: formats)  // reads /etc/demo/demo.yaml too
    // snippet: end
    _ = store
  }

  static func etcdLayer() async {
    // snippet: EtcdLayer
    let etcd = EtcdLayer(
      endpoints: ["http://10.0.0.5:2379", "http://10.0.0.6:2379", "http://10.0.0.7:2379"],
      prefix: "/config/myapp/")
    let store = SettingsStore(layers: StandardLayout(app: "myapp").layers + [etcd])
    await withDiscardingTaskGroup { group in
      group.addTask { await store.run() }  // reads the prefix, then follows the watch
      // … the service's own tasks, beside it
    }
    // snippet: end
  }

  static func etcdTLS(password: String) -> EtcdLayer {
    // snippet: EtcdTLS
    let etcd = EtcdLayer(
      endpoints: ["https://10.0.0.5:2379", "https://10.0.0.6:2379", "https://10.0.0.7:2379"],
      prefix: "/config/myapp/",
      credentials: EtcdCredentials(user: "myapp", password: password),
      tls: EtcdTLS(
        caFile: "/etc/myapp/etcd-ca.pem",
        certificateFile: "/etc/myapp/etcd-client.pem", keyFile: "/etc/myapp/etcd-client-key.pem"),
      transport: .grpc)
    // snippet: end
    return etcd
  }

  static func etcdMetrics(etcd: EtcdLayer) async {
    await withDiscardingTaskGroup { group in
      // snippet: EtcdMetrics
      let metrics = EtcdMetrics(layer: etcd)  // to MetricsSystem.factory
      group.addTask { await metrics.run() }  // in the service's task group: a sample every second
      // snippet: end
    }
  }

  static func etcdCatalog() async {
    // snippet: etcd-overview
    let etcd = EtcdLayer(endpoints: ["http://10.0.0.5:2379"], prefix: "/config/myapp/", valueFormat: .string)
    let store = SettingsStore(layers: StandardLayout(app: "myapp").layers + [etcd])
    await withDiscardingTaskGroup { group in
      group.addTask { await store.run() }
    }
    // snippet: end
  }

  static func valueFormats() -> [EtcdLayer] {
    // snippet: EtcdValueFormat
    // "8080" → 8080 for an Int setting
    let strings = EtcdLayer(prefix: "/config/myapp/", valueFormat: .string)
    let json = EtcdLayer(prefix: "/config/myapp/", valueFormat: .json)  // 8080, true, [1, 2], {"host": "…"}
    let ini = FormatRegistry.standard.format(named: "ini")!
    let documents = EtcdLayer(prefix: "/config/myapp/", valueFormat: .document(ini))
    // snippet: end
    return [strings, json, documents]
  }

  static func serviceGroup(app: some Service, logger: Logger) async throws {
    // snippet: SettingsStoreService
    let store = SettingsStore(app: "myserver")
    let group = ServiceGroup(
      services: [SettingsStoreService(store: store, logger: logger), app],
      gracefulShutdownSignals: [.sigterm], logger: logger)
    try await group.run()
    // snippet: end
  }

  static func eventLogger(store: SettingsStore) async {
    await withDiscardingTaskGroup { group in
      // snippet: StoreEventLogger
      let eventLogger = StoreEventLogger(logger: Logger(label: "config"))
      group.addTask { await eventLogger.run(store: store) }  // or SettingsStoreService(store:logger:)
      // snippet: end
    }
  }

  static func eventLevels(store: SettingsStore) {
    // snippet: Levels
    let levels = StoreEventLogger.Levels(reloaded: .info, failed: .error, pendingRestart: .warning)
    let eventLogger = StoreEventLogger(logger: Logger(label: "config"), levels: levels)
    // snippet: end
    _ = eventLogger
  }

  static func storeMetrics(store: SettingsStore) async {
    await withDiscardingTaskGroup { group in
      // snippet: StoreMetrics
      let metrics = StoreMetrics(dimensions: [("store", "main")])  // to MetricsSystem.factory
      group.addTask { await metrics.run(store: store) }  // until cancelled or store.shutdown()
      // snippet: end
    }
  }

  static func bootstrap(store: SettingsStore) {
    // snippet: LiveLevelLogHandler
    struct LogSettings: SettingsGroup {  // section "log"
      @Setting var level: Logger.Level = .info  // "debug", "DEBUG", "Debug"…
    }
    let log = LogSettings(store: store)
    LoggingSystem.bootstrap { label in
      LiveLevelLogHandler(wrapping: StreamLogHandler.standardError(label: label), following: log.$level)
    }
    // snippet: end
  }
}
