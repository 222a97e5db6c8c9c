/// A value read by key, with where it came from.
public struct KeyedValue<Value: Sendable>: Sendable {
  /// The value, converted to the type asked for.
  public var value: Value
  /// Where it came from.
  public var origin: Origin
}

/// Typed access by key, for code that knows a key only at run time (an admin endpoint, a plugin).
extension SettingsStore {
  /// The value at `key` as `type`, with its origin; `nil` when no layer sets it and no setting declared
  /// at the key has a value.
  ///
  /// When a setting is declared at `key`, this is its running value (validated, the last good one kept
  /// over a bad live edit, the pinned one inside ``SettingsGroup/withConsistentSnapshot(_:)``), converted
  /// to `type`; otherwise the merged value of the layers.
  /// - Throws: ``StrataError`` (`typeMismatch`, naming the key and where the value came from) when the
  ///   value does not convert to `type`.
  public func value<Value: Decodable & Sendable>(forKey key: String, as type: Value.Type)
    throws(StrataError) -> KeyedValue<Value>?
  {
    let tree: SettingValue
    let origin: Origin
    if let box = state.withLock({ $0.registry[key]?.first }) {
      let current = box.currentValue()
      guard let value = current.value else { return nil }
      (tree, origin) = (value, current.origin)
    } else {
      let snapshot = readingSnapshot()
      guard let value = snapshot.value(forKey: key) else { return nil }
      (tree, origin) = (value, snapshot.entry(forKey: key)?.origin ?? value.origin)
    }
    return KeyedValue(value: try SettingDecoder().decode(type, from: tree, key: key), origin: origin)
  }

  /// Writes `value` at `key` to the ``writeTarget``, as the declared setting's record would when one is
  /// declared there: `.readOnly` refuses, the value must convert to the setting's type and pass its
  /// validation, and a `.restartRequired` one applies at the next start. A key no setting declares is
  /// written as given. A value equal to the current one writes nothing.
  /// - Throws: ``StrataError`` when the setting refuses the value or the write fails; then nothing
  ///   changed.
  public func setValue<Value: Encodable & Sendable>(_ value: Value, forKey key: String) throws(StrataError) {
    // A nil optional encodes to nothing: the key is removed, as `reset()` does.
    var tree = try SettingEncoder().encode(value)
    if let box = state.withLock({ $0.registry[key]?.first }), let given = tree {
      tree = try box.checkedWrite(given)
    }
    try write(tree, forKey: key)
  }
}
