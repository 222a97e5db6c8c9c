/// Writes: to the runtime layer or the user's file, with `.readOnly` and validation enforced.
extension SettingsStore {
  /// Sets a runtime value (the highest layer) and publishes it at once.
  /// - Throws: `invalidValue` when the key is, or holds, or lies inside, a `.readOnly` setting.
  public func setRuntimeValue(_ value: SettingValue?, forKey key: String) throws(StrataError) {
    try checkWritable(key)
    state.withLock { state in
      if let value {
        state.runtime.set(value, at: key)
      } else {
        state.runtime.remove(at: key)
      }
    }
    rebuild(reloading: [])
  }

  /// Writes a value (or removes it, for `nil`) to the ``writeTarget`` and publishes the result at once.
  ///
  /// A file is replaced atomically (see ``WriteTarget``). A higher layer (the environment) still wins
  /// over what is written; the record's origin says so.
  /// - Throws: ``StrataError`` (`writeFailed`, or the parse error of a file that is broken now) when the
  ///   value cannot be written; then nothing changed, on disk or in memory.
  public func write(_ value: SettingValue?, forKey key: String) throws(StrataError) {
    try checkWritable(key)
    // Writing what is already there changes nothing: no file write, no new generation.
    if let value, let current = snapshot.value(forKey: key), current == value { return }
    guard case .file(let path) = writeTarget else {
      try setRuntimeValue(value, forKey: key)
      return
    }
    try writeLock.withLock { count throws(StrataError) in
      count += 1
      try FileWriter.write(value, forKey: key, toFile: path, options: stack.options)
    }
    let layers = state.withLock { state in
      Set(state.contents.indices.filter { state.contents[$0]?.paths.contains(path) ?? false })
    }
    rebuild(reloading: layers.isEmpty ? nil : layers)
  }

  /// Refuses a write that would change a `.readOnly` setting: at its key, above it (a table that holds
  /// it) or inside it (a field of its table).
  func checkWritable(_ key: String) throws(StrataError) {
    let readOnly = state.withLock { $0.registry.readOnlyKey(touching: key) }
    if let readOnly { throw StrataError(.invalidValue, "\(readOnly) is read-only") }
  }

  /// Records a problem with a setting that could not be thrown (an assignment through the property).
  func report(_ error: StrataError, forKey key: String) {
    state.withLock { $0.settingDiagnostics[key, default: []].append(Diagnostic(.error, error)) }
  }
}

extension SettingValue {
  /// Removes the value at a key (see ``SettingKey``), and any table left empty by that.
  mutating func remove(at key: String) {
    remove(atComponents: SettingKey.names(in: key)[...])
  }

  private mutating func remove(atComponents components: ArraySlice<String>) {
    guard let first = components.first, case .table(var table) = kind else { return }
    if components.count == 1 {
      table[first] = nil
    } else if var child = table[first] {
      child.remove(atComponents: components.dropFirst())
      table[first] = child.table?.isEmpty == true ? nil : child
    }
    kind = .table(table)
  }
}
