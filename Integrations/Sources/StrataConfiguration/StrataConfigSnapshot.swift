import Configuration
import Strata

/// One generation of a store's values, as a swift-configuration snapshot: declared settings' running
/// values, and the layers' merged values for every other key.
struct StrataConfigSnapshot: ConfigSnapshot {
  /// The store's snapshot.
  let snapshot: Snapshot
  /// The running values of the declared settings, by key, read when the snapshot was taken.
  let running: [String: SettingValue]
  /// The provider's name.
  let providerName: String

  /// Takes a store's current values.
  init(store: SettingsStore, providerName: String) {
    // A reload between these two reads can leave them a generation apart; a watcher gets the next
    // snapshot after that reload.
    snapshot = store.snapshot
    running = RunningTree.runningValues(of: store)
    self.providerName = providerName
  }

  /// The value at `key` as `type`.
  func value(forKey key: AbsoluteConfigKey, type: ConfigType) throws -> LookupResult {
    let settingKey = StrataConfigProvider.settingKey(of: key)
    guard let tree = running[settingKey] ?? snapshot.root.value(at: settingKey) else {
      return LookupResult(encodedKey: settingKey, value: nil)
    }
    let content = try ConfigConversion.content(of: tree, forKey: settingKey, as: type)
    return LookupResult(
      encodedKey: settingKey,
      value: content.map { ConfigValue($0, isSecret: ConfigConversion.isSecret(settingKey, in: snapshot)) })
  }
}
