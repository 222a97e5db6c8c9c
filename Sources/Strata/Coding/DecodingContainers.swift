/// The keyed container over a table. Every `decode` overload funnels into ``DecodingContext/decode``
/// so that leaves are converted the same way wherever they sit.
struct KeyedNodeContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
  var decoder: NodeDecoder
  var table: SettingTable
  /// The default's fields at this table (empty when there is no default to fall back on): a field the
  /// table lacks is read from here.
  var fallback: SettingTable

  var codingPath: [any CodingKey] { decoder.codingPath }
  /// The table's own keys only: a dictionary's entries are those the layers set.
  var allKeys: [Key] { table.keys.compactMap { Key(stringValue: $0) } }

  func contains(_ key: Key) -> Bool { table.contains(key.stringValue) || fallback.contains(key.stringValue) }

  /// Trees have no null, so only a missing key reads as nil.
  func decodeNil(forKey key: Key) -> Bool { !contains(key) }

  /// The node at a key and the default's node there (the fallback for its own fields).
  private func node(_ key: Key, _ type: Any.Type) throws(StrataError) -> (SettingValue, SettingValue?) {
    let defaultNode = fallback[key.stringValue]
    guard let node = table[key.stringValue] ?? defaultNode else {
      throw decoder.context.missing(type, path: codingPath + [key], in: decoder.node)
    }
    return (node, defaultNode)
  }

  private func value<T: Decodable>(_ type: T.Type, _ key: Key) throws(StrataError) -> T {
    let (node, defaultNode) = try node(key, type)
    return try decoder.context.decode(type, from: node, path: codingPath + [key], fallback: defaultNode)
  }

  func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T { try value(type, key) }
  func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try value(type, key) }
  func decode(_ type: String.Type, forKey key: Key) throws -> String { try value(type, key) }
  func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try value(type, key) }
  func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try value(type, key) }
  func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try value(type, key) }
  func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try value(type, key) }
  func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try value(type, key) }
  func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try value(type, key) }
  func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try value(type, key) }
  func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try value(type, key) }
  func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try value(type, key) }
  func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try value(type, key) }
  func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try value(type, key) }
  func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try value(type, key) }

  func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws
    -> KeyedDecodingContainer<NestedKey>
  {
    let (node, defaultNode) = try node(key, SettingTable.self)
    return try decoder.child(node, key: key, type: SettingTable.self, fallback: defaultNode)
      .container(keyedBy: type)
  }

  func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
    try decoder.child(try node(key, [SettingValue].self).0, key: key, type: [SettingValue].self)
      .unkeyedContainer()
  }

  func superDecoder() throws -> any Decoder { try superDecoder(key: NameKey("super")) }
  func superDecoder(forKey key: Key) throws -> any Decoder { try superDecoder(key: key) }

  private func superDecoder(key: any CodingKey) throws(StrataError) -> NodeDecoder {
    let defaultNode = fallback[key.stringValue]
    guard let node = table[key.stringValue] ?? defaultNode else {
      throw decoder.context.missing(SettingTable.self, path: codingPath + [key], in: decoder.node)
    }
    return decoder.child(node, key: key, type: SettingTable.self, fallback: defaultNode)
  }
}

/// The unkeyed container over an array (or comma-separated text, already split).
struct UnkeyedNodeContainer: UnkeyedDecodingContainer {
  var decoder: NodeDecoder
  var items: [SettingValue]
  var currentIndex = 0

  init(decoder: NodeDecoder, items: [SettingValue]) {
    self.decoder = decoder
    self.items = items
  }

  var codingPath: [any CodingKey] { decoder.codingPath }
  var count: Int? { items.count }
  var isAtEnd: Bool { currentIndex >= items.count }

  /// Trees have no null.
  func decodeNil() -> Bool { false }

  private mutating func next(_ type: Any.Type) throws(StrataError) -> (SettingValue, IndexKey) {
    let key = IndexKey(currentIndex)
    guard !isAtEnd else { throw decoder.context.missing(type, path: codingPath + [key], in: decoder.node) }
    currentIndex += 1
    return (items[key.intValue!], key)
  }

  private mutating func value<T: Decodable>(_ type: T.Type) throws(StrataError) -> T {
    let (node, key) = try next(type)
    do {
      return try decoder.context.decode(type, from: node, path: codingPath + [key])
    } catch {
      // Leave the index on the failed element, as the `Decoder` contract asks.
      currentIndex -= 1
      throw error
    }
  }

  mutating func decode<T: Decodable>(_ type: T.Type) throws -> T { try value(type) }
  mutating func decode(_ type: Bool.Type) throws -> Bool { try value(type) }
  mutating func decode(_ type: String.Type) throws -> String { try value(type) }
  mutating func decode(_ type: Double.Type) throws -> Double { try value(type) }
  mutating func decode(_ type: Float.Type) throws -> Float { try value(type) }
  mutating func decode(_ type: Int.Type) throws -> Int { try value(type) }
  mutating func decode(_ type: Int8.Type) throws -> Int8 { try value(type) }
  mutating func decode(_ type: Int16.Type) throws -> Int16 { try value(type) }
  mutating func decode(_ type: Int32.Type) throws -> Int32 { try value(type) }
  mutating func decode(_ type: Int64.Type) throws -> Int64 { try value(type) }
  mutating func decode(_ type: UInt.Type) throws -> UInt { try value(type) }
  mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try value(type) }
  mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try value(type) }
  mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try value(type) }
  mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try value(type) }

  mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws
    -> KeyedDecodingContainer<NestedKey>
  {
    let (node, key) = try next(SettingTable.self)
    return try decoder.child(node, key: key, type: SettingTable.self).container(keyedBy: type)
  }

  mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
    let (node, key) = try next([SettingValue].self)
    return try decoder.child(node, key: key, type: [SettingValue].self).unkeyedContainer()
  }

  mutating func superDecoder() throws -> any Decoder {
    let (node, key) = try next(SettingTable.self)
    return decoder.child(node, key: key, type: SettingTable.self)
  }
}
