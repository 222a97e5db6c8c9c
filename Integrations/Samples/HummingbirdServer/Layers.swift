import FoundationEssentials
import Strata

/// The store: the standard layers of the app `hbserver` (vendor and system files with their drop-ins,
/// the user's file, `HBSERVER_*` variables), read under `root` when one is given.
///
/// Every layer is listed here, so adding a source is one line.
func makeStore(root: String?, environment: [String: String]) -> SettingsStore {
  let layout = StandardLayout(app: "hbserver", root: root, environment: environment)
  let layers: [any Layer] = layout.layers
  // ETCD: the etcd source (StrataEtcd) goes here once it lands, above the files and below the
  // environment (make `layers` a `var`):
  //   layers.insert(EtcdLayer(…), at: layers.count - 1)
  return SettingsStore(layers: layers, options: layout.options(), writeTarget: .runtime)
}
