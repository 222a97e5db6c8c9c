import Strata

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// A declared setting's running value read back as a tree, so that a snapshot can hold it: scalars as
/// text (Strata converts text to any scalar type the way it converted the file's), bytes as bytes,
/// arrays and tables as they are.
struct RunningTree: Decodable, Sendable {
  /// The value.
  let tree: SettingValue

  init(from decoder: any Decoder) throws {
    // Text first: an array read from text would split "Hello, world" at the comma.
    if let single = try? decoder.singleValueContainer() {
      if let text = try? single.decode(String.self) {
        tree = SettingValue(.string(text), origin: .runtime)
        return
      }
      if let data = try? single.decode(Data.self) {
        tree = SettingValue(.data(data), origin: .runtime)
        return
      }
    }
    if var array = try? decoder.unkeyedContainer() {
      var items: [SettingValue] = []
      while !array.isAtEnd { items.append(try array.decode(RunningTree.self).tree) }
      tree = SettingValue(.array(items), origin: .runtime)
      return
    }
    let table = try decoder.container(keyedBy: Name.self)
    tree = SettingValue(
      .table(
        SettingTable(
          try table.allKeys.map { ($0.stringValue, try table.decode(RunningTree.self, forKey: $0).tree) })),
      origin: .runtime)
  }

  /// Any name in a table.
  private struct Name: CodingKey {
    let stringValue: String
    var intValue: Int? { nil }
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
  }

  /// The running values of every declared key of `store` that has one, by key.
  static func runningValues(of store: SettingsStore) -> [String: SettingValue] {
    var values: [String: SettingValue] = [:]
    for key in store.declaredKeys {
      guard let running = try? store.value(forKey: key, as: RunningTree.self) else { continue }
      values[key] = running.value.tree
    }
    return values
  }
}
