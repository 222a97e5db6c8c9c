/// The keyed container over a table under construction. Every `encode` overload funnels into
/// ``EncodingContext/encode(_:into:path:)``.
struct KeyedNodeEncodingContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
  var encoder: NodeEncoder
  var table: TableBox

  var codingPath: [any CodingKey] { encoder.codingPath }

  private func value<T: Encodable>(_ value: T, _ key: Key) throws(StrataError) {
    try encoder.context.encode(value, into: table.box(for: key.stringValue), path: codingPath + [key])
  }

  mutating func encodeNil(forKey key: Key) { table.box(for: key.stringValue).content = .null }

  /// A `nil` optional property is recorded as an encoded `nil` (left out of the table all the same), so
  /// that the struct's fields can be listed with their types (``FieldShape``).
  private func present<T: Encodable>(_ value: T?, _ key: Key) throws(StrataError) {
    guard let value else {
      let box = table.box(for: key.stringValue)
      box.content = .null
      encoder.context.recordType(T.self, in: box)
      return
    }
    try self.value(value, key)
  }

  mutating func encodeIfPresent<T: Encodable>(_ value: T?, forKey key: Key) throws { try present(value, key) }
  mutating func encodeIfPresent(_ value: Bool?, forKey key: Key) throws { try present(value, key) }
  mutating func encodeIfPresent(_ value: String?, forKey key: Key) throws { try present(value, key) }
  mutating func encodeIfPresent(_ value: Double?, forKey key: Key) throws { try present(value, key) }
  mutating func encodeIfPresent(_ value: Float?, forKey key: Key) throws { try present(value, key) }
  mutating func encodeIfPresent(_ value: Int?, forKey key: Key) throws { try present(value, key) }
  mutating func encodeIfPresent(_ value: Int8?, forKey key: Key) throws { try present(value, key) }
  mutating func encodeIfPresent(_ value: Int16?, forKey key: Key) throws { try present(value, key) }
  mutating func encodeIfPresent(_ value: Int32?, forKey key: Key) throws { try present(value, key) }
  mutating func encodeIfPresent(_ value: Int64?, forKey key: Key) throws { try present(value, key) }
  mutating func encodeIfPresent(_ value: UInt?, forKey key: Key) throws { try present(value, key) }
  mutating func encodeIfPresent(_ value: UInt8?, forKey key: Key) throws { try present(value, key) }
  mutating func encodeIfPresent(_ value: UInt16?, forKey key: Key) throws { try present(value, key) }
  mutating func encodeIfPresent(_ value: UInt32?, forKey key: Key) throws { try present(value, key) }
  mutating func encodeIfPresent(_ value: UInt64?, forKey key: Key) throws { try present(value, key) }
  mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws { try self.value(value, key) }
  mutating func encode(_ value: Bool, forKey key: Key) throws { try self.value(value, key) }
  mutating func encode(_ value: String, forKey key: Key) throws { try self.value(value, key) }
  mutating func encode(_ value: Double, forKey key: Key) throws { try self.value(value, key) }
  mutating func encode(_ value: Float, forKey key: Key) throws { try self.value(value, key) }
  mutating func encode(_ value: Int, forKey key: Key) throws { try self.value(value, key) }
  mutating func encode(_ value: Int8, forKey key: Key) throws { try self.value(value, key) }
  mutating func encode(_ value: Int16, forKey key: Key) throws { try self.value(value, key) }
  mutating func encode(_ value: Int32, forKey key: Key) throws { try self.value(value, key) }
  mutating func encode(_ value: Int64, forKey key: Key) throws { try self.value(value, key) }
  mutating func encode(_ value: UInt, forKey key: Key) throws { try self.value(value, key) }
  mutating func encode(_ value: UInt8, forKey key: Key) throws { try self.value(value, key) }
  mutating func encode(_ value: UInt16, forKey key: Key) throws { try self.value(value, key) }
  mutating func encode(_ value: UInt32, forKey key: Key) throws { try self.value(value, key) }
  mutating func encode(_ value: UInt64, forKey key: Key) throws { try self.value(value, key) }

  mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key)
    -> KeyedEncodingContainer<NestedKey>
  {
    encoder.child(table.box(for: key.stringValue), key: key).container(keyedBy: keyType)
  }

  mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
    encoder.child(table.box(for: key.stringValue), key: key).unkeyedContainer()
  }

  mutating func superEncoder() -> any Encoder {
    encoder.child(table.box(for: "super"), key: NameKey("super"))
  }

  mutating func superEncoder(forKey key: Key) -> any Encoder {
    encoder.child(table.box(for: key.stringValue), key: key)
  }
}

/// The unkeyed container over an array under construction.
struct UnkeyedNodeEncodingContainer: UnkeyedEncodingContainer {
  var encoder: NodeEncoder
  var array: ArrayBox

  var codingPath: [any CodingKey] { encoder.codingPath }
  var count: Int { array.items.count }

  private func value<T: Encodable>(_ value: T) throws(StrataError) {
    let key = IndexKey(array.items.count)
    try encoder.context.encode(value, into: array.append(), path: codingPath + [key])
  }

  /// Recorded, and refused when the tree is built: arrays cannot hold nil.
  mutating func encodeNil() { array.append().content = .null }
  mutating func encode<T: Encodable>(_ value: T) throws { try self.value(value) }
  mutating func encode(_ value: Bool) throws { try self.value(value) }
  mutating func encode(_ value: String) throws { try self.value(value) }
  mutating func encode(_ value: Double) throws { try self.value(value) }
  mutating func encode(_ value: Float) throws { try self.value(value) }
  mutating func encode(_ value: Int) throws { try self.value(value) }
  mutating func encode(_ value: Int8) throws { try self.value(value) }
  mutating func encode(_ value: Int16) throws { try self.value(value) }
  mutating func encode(_ value: Int32) throws { try self.value(value) }
  mutating func encode(_ value: Int64) throws { try self.value(value) }
  mutating func encode(_ value: UInt) throws { try self.value(value) }
  mutating func encode(_ value: UInt8) throws { try self.value(value) }
  mutating func encode(_ value: UInt16) throws { try self.value(value) }
  mutating func encode(_ value: UInt32) throws { try self.value(value) }
  mutating func encode(_ value: UInt64) throws { try self.value(value) }

  mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type)
    -> KeyedEncodingContainer<NestedKey>
  {
    let key = IndexKey(array.items.count)
    return encoder.child(array.append(), key: key).container(keyedBy: keyType)
  }

  mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
    let key = IndexKey(array.items.count)
    return encoder.child(array.append(), key: key).unkeyedContainer()
  }

  mutating func superEncoder() -> any Encoder {
    let key = IndexKey(array.items.count)
    return encoder.child(array.append(), key: key)
  }
}

/// The single-value container: writes the box itself.
struct SingleNodeEncodingContainer: SingleValueEncodingContainer {
  var encoder: NodeEncoder

  var codingPath: [any CodingKey] { encoder.codingPath }

  private func value<T: Encodable>(_ value: T) throws(StrataError) {
    try encoder.context.encode(value, into: encoder.box, path: codingPath)
  }

  mutating func encodeNil() { encoder.box.content = .null }
  mutating func encode<T: Encodable>(_ value: T) throws { try self.value(value) }
  mutating func encode(_ value: Bool) throws { try self.value(value) }
  mutating func encode(_ value: String) throws { try self.value(value) }
  mutating func encode(_ value: Double) throws { try self.value(value) }
  mutating func encode(_ value: Float) throws { try self.value(value) }
  mutating func encode(_ value: Int) throws { try self.value(value) }
  mutating func encode(_ value: Int8) throws { try self.value(value) }
  mutating func encode(_ value: Int16) throws { try self.value(value) }
  mutating func encode(_ value: Int32) throws { try self.value(value) }
  mutating func encode(_ value: Int64) throws { try self.value(value) }
  mutating func encode(_ value: UInt) throws { try self.value(value) }
  mutating func encode(_ value: UInt8) throws { try self.value(value) }
  mutating func encode(_ value: UInt16) throws { try self.value(value) }
  mutating func encode(_ value: UInt32) throws { try self.value(value) }
  mutating func encode(_ value: UInt64) throws { try self.value(value) }
}
