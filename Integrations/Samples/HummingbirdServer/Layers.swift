import Strata
import StrataEtcd

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// The store: the standard layers of the app `hbserver` (vendor and system files with their drop-ins,
/// the user's file, `HBSERVER_*` variables), read under `root` when one is given; with an etcd endpoint,
/// the keys under `/config/hbserver/` too, above the files and below the environment, so a fleet's
/// shared values override each host's files and an operator's variable still wins.
func makeStore(root: String?, etcd endpoint: String?, environment: [String: String]) -> SettingsStore {
  let layout = StandardLayout(app: "hbserver", root: root, environment: environment)
  var layers: [any Layer] = layout.layers
  if let endpoint {
    let files = layers.lastIndex { $0.scope <= .user } ?? layers.count - 1
    layers.insert(EtcdLayer(endpoints: [endpoint], prefix: "/config/hbserver/"), at: files + 1)
  }
  return SettingsStore(layers: layers, options: layout.options(), writeTarget: .runtime, app: "hbserver")
}
