import Configuration
import Strata

/// One generation of a store's merged values, as a swift-configuration snapshot.
struct StrataConfigSnapshot: ConfigSnapshot {
  /// The store's snapshot.
  let snapshot: Snapshot
  /// The provider's name.
  let providerName: String

  /// The merged value at `key` as `type`.
  func value(forKey key: AbsoluteConfigKey, type: ConfigType) throws -> LookupResult {
    let settingKey = StrataConfigProvider.settingKey(of: key)
    guard let tree = snapshot.value(forKey: settingKey) else {
      return LookupResult(encodedKey: settingKey, value: nil)
    }
    let content = try ConfigConversion.content(of: tree, forKey: settingKey, as: type)
    return LookupResult(
      encodedKey: settingKey,
      value: content.map { ConfigValue($0, isSecret: ConfigConversion.isSecret(settingKey, in: snapshot)) })
  }
}
