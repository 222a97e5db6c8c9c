/// Typed access by key, for code that knows a key only at run time (an admin endpoint, a plugin).
extension SettingsStore {
  /// The value at `key` as `type` (`value`), with where it came from (`origin`); `nil` when no layer
  /// sets it and no setting declared at the key has a value.
  ///
  /// When a setting is declared at `key`, this is its running value (validated, the last good one kept
  /// over a bad live edit, the pinned one inside ``SettingsGroup/withConsistentSnapshot(_:)``), converted
  /// to `type`; otherwise the merged value of the layers.
  /// - Throws: ``StrataError`` (`typeMismatch`, naming the key and where the value came from) when the
  ///   value does not convert to `type`.
  public func value<Value: Decodable & Sendable>(forKey key: String, as type: Value.Type)
    throws(StrataError) -> (value: Value, origin: Origin)?
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
    return (try SettingDecoder().decode(type, from: tree, key: key), origin)
  }

  /// Writes `value` at `key` to the ``WriteTarget``, as the declared setting's record would when one is
  /// declared there: `.readOnly` refuses, the value must convert to the setting's type and pass its
  /// validation, and a `.restartRequired` one applies at the next start. A key no setting declares is
  /// written as given. A value equal to the current one writes nothing.
  ///
  /// Use it when the key is known only at run time (an admin endpoint, a plugin, a migration). For a
  /// setting the code declares, write through the setting's record: `try server.$port.save(9000)`.
  /// From async code, use the `async` form, which never blocks a thread of the cooperative pool.
  ///
  /// The call returns once the new generation is published and announced; it blocks its thread while
  /// another process writes the same directory (up to 10 s) and while the file is synced.
  /// - Parameters:
  ///   - value: the value; `nil` (of an optional type) removes the key from the write target, so the
  ///     lower layers' value (or the default) applies.
  ///   - key: the full dotted key (see ``SettingKey``).
  /// - Throws: ``StrataError`` when the setting refuses the value or the write fails; then nothing
  ///   changed, on disk or in memory.
  public func saveValue<Value: Encodable & Sendable>(_ value: Value, forKey key: String) throws(StrataError) {
    try write(try checkedTree(value, forKey: key), forKey: key)
  }

  /// Writes `value` at `key` as the synchronous form does, without blocking a thread of the cooperative
  /// pool: the file is written on a thread of its own, and the call suspends while it waits for the
  /// directory's lock, the disk or the store's reload loop.
  /// - Parameters:
  ///   - value: the value; `nil` (of an optional type) removes the key from the write target.
  ///   - key: the full dotted key (see ``SettingKey``).
  /// - Throws: ``StrataError`` when the setting refuses the value or the write fails; then nothing
  ///   changed, on disk or in memory.
  public func saveValue<Value: Encodable & Sendable>(
    _ value: Value, forKey key: String
  ) async throws(StrataError) {
    try await write(try checkedTree(value, forKey: key), forKey: key)
  }

  /// `value` as a tree, checked by the setting declared at `key` (read-only, type, validation).
  private func checkedTree<Value: Encodable & Sendable>(
    _ value: Value, forKey key: String
  ) throws(StrataError) -> SettingValue? {
    // A nil optional encodes to nothing: the key is removed, as `removeSaved()` does.
    let tree = try SettingEncoder().encode(value)
    guard let box = state.withLock({ $0.registry[key]?.first }), let given = tree else { return tree }
    return try box.checkedWrite(given)
  }
}
