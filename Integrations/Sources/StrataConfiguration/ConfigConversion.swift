import Configuration
import Strata

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// Strata values as swift-configuration contents, converted the way Strata converts a setting's value.
enum ConfigConversion {
  /// The content of a value as `type`, read by `reader` as the Swift type that matches; `nil` when
  /// there is none.
  static func content(as type: ConfigType, from reader: some TypedReader) throws -> ConfigContent? {
    func typed<T: Decodable & Sendable>(_: T.Type) throws -> T? { try reader.read(T.self) }
    return switch type {
    case .string: try typed(String.self).map { .string($0) }
    case .int: try typed(Int.self).map { .int($0) }
    case .double: try typed(Double.self).map { .double($0) }
    case .bool: try typed(Bool.self).map { .bool($0) }
    case .bytes: try typed(Data.self).map { .bytes(Array($0)) }
    case .stringArray: try typed([String].self).map { .stringArray($0) }
    case .intArray: try typed([Int].self).map { .intArray($0) }
    case .doubleArray: try typed([Double].self).map { .doubleArray($0) }
    case .boolArray: try typed([Bool].self).map { .boolArray($0) }
    case .byteChunkArray: try typed([Data].self).map { .byteChunkArray($0.map { Array($0) }) }
    }
  }

  /// The content of a merged value as `type`; `nil` for a table (a key with keys below it is not a
  /// value).
  static func content(of tree: SettingValue, forKey key: String, as type: ConfigType) throws -> ConfigContent?
  {
    guard tree.table == nil else { return nil }
    return try content(as: type, from: TreeReader(tree: tree, key: key))
  }

  /// Whether the value at `key` is a secret: a `.secret` setting's, or one from a secret source or
  /// below a secret key.
  static func isSecret(_ key: String, in snapshot: Snapshot) -> Bool {
    snapshot.isSecret(forKey: key)
  }
}

/// Reads a value as a given Swift type.
protocol TypedReader {
  /// The value as `type`, or `nil` when there is none.
  func read<T: Decodable & Sendable>(_ type: T.Type) throws -> T?
}

/// Reads a merged value of the layers.
struct TreeReader: TypedReader {
  /// The value.
  let tree: SettingValue
  /// Its key, for errors.
  let key: String

  func read<T: Decodable & Sendable>(_ type: T.Type) throws -> T? {
    try tree.decoded(as: type, key: key)
  }
}

/// Reads a key from a store: a declared setting's running value.
struct StoreReader: TypedReader {
  /// The store.
  let store: SettingsStore
  /// The key.
  let key: String

  func read<T: Decodable & Sendable>(_ type: T.Type) throws -> T? {
    try store.value(forKey: key, as: type)?.value
  }
}
