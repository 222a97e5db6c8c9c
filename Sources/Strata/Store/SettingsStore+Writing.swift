/// Writes: to the runtime layer or the user's file, with `.readOnly` and validation enforced.
///
/// The library's ways to write (`save(_:)` on a setting's record, ``SettingsStore/saveValue(_:forKey:)-512me``,
/// each with an `async` form) all end here; these untyped forms are internal.
extension SettingsStore {
  /// Sets a runtime value (the highest layer) and publishes it; returns once it is published and
  /// announced.
  /// - Throws: `invalidValue` when the key is, or holds, or lies inside, a `.readOnly` setting.
  func setRuntimeValue(_ value: SettingValue?, forKey key: String) throws(StrataError) {
    try checkWritable(key)
    setRuntime(value, forKey: key)
    rebuild(reloading: [])
  }

  /// Sets a runtime value (the highest layer) and publishes it; suspends, never blocks a thread, while
  /// another generation of the store is being published.
  /// - Throws: `invalidValue` when the key is, or holds, or lies inside, a `.readOnly` setting.
  func setRuntimeValue(_ value: SettingValue?, forKey key: String) async throws(StrataError) {
    try checkWritable(key)
    setRuntime(value, forKey: key)
    await runPipeline(.reload([]))
  }

  private func setRuntime(_ value: SettingValue?, forKey key: String) {
    state.withLock { state in
      if let value {
        state.runtime.set(value, at: key)
      } else {
        state.runtime.remove(at: key)
      }
    }
  }

  /// Writes a value (or removes it, for `nil`) to the ``WriteTarget`` and publishes the result; returns
  /// once it is published and announced.
  ///
  /// A file is replaced atomically (see ``SettingsStore/WriteTarget``). The value is compared with what the write
  /// target itself holds, never with the merged value: a value that a higher layer (the command line,
  /// the environment) already supplies is still written, so that it stays once that layer is gone, and
  /// the record's origin says the higher layer wins meanwhile; a value the target holds already writes
  /// nothing (no file write, no new generation). The call blocks its thread while another process
  /// writes in the same directory (up to 10 s) and while the file is synced: from async code, use the
  /// `async` form, which does that work on a thread of its own.
  /// - Throws: ``StrataError`` (`writeFailed`, or the parse error of a file that is broken now) when the
  ///   value cannot be written; then nothing changed, on disk or in memory.
  func write(_ value: SettingValue?, forKey key: String) throws(StrataError) {
    try write(value, forKey: key, isUnchanged: nil)
  }

  /// ``write(_:forKey:)``, with what counts as the target's value already (`isUnchanged`, given the
  /// target's own value at the key; default: equal content).
  func write(
    _ value: SettingValue?, forKey key: String, isUnchanged: ((SettingValue?) -> Bool)?
  ) throws(StrataError) {
    try checkWritable(key)
    let isUnchanged = isUnchanged ?? { $0 == value }
    guard case .file(let path) = writeTarget else {
      if isUnchanged(state.withLock { $0.runtime.value(at: key) }) { return }
      try setRuntimeValue(value, forKey: key)
      return
    }
    guard try writer.write(value, forKey: key, toFile: path, isUnchanged: isUnchanged) else { return }
    rebuild(reloading: layers(reading: path))
  }

  /// Writes a value (or removes it, for `nil`) to the ``WriteTarget`` and publishes the result, as the
  /// synchronous form does, without blocking a thread of the cooperative pool: the file is written on a
  /// thread of its own, and the call suspends while it waits for the lock, the disk or the store's loop.
  /// - Throws: ``StrataError`` (`writeFailed`, or the parse error of a file that is broken now) when the
  ///   value cannot be written; then nothing changed, on disk or in memory.
  func write(
    _ value: SettingValue?, forKey key: String, isUnchanged: (@Sendable (SettingValue?) -> Bool)? = nil
  ) async throws(StrataError) {
    try checkWritable(key)
    let isUnchanged = isUnchanged ?? { $0 == value }
    guard case .file(let path) = writeTarget else {
      if isUnchanged(state.withLock { $0.runtime.value(at: key) }) { return }
      try await setRuntimeValue(value, forKey: key)
      return
    }
    let written = await onDedicatedThread {
      Result { () throws(StrataError) in
        try self.writer.write(value, forKey: key, toFile: path, isUnchanged: isUnchanged)
      }
    }
    guard try written.get() else { return }
    await runPipeline(.reload(layers(reading: path)))
  }

  /// The layers that read `path` (`nil`, all, when none is known to).
  private func layers(reading path: String) -> Set<Int>? {
    let layers = state.withLock { state in
      Set(state.contents.indices.filter { state.contents[$0]?.paths.contains(path) ?? false })
    }
    return layers.isEmpty ? nil : layers
  }

  /// Refuses a write that would change a `.readOnly` setting: at its key, above it (a table that holds
  /// it) or inside it (a field of its table), and a key deeper than ``ParseOptions/maxDepth`` (no file
  /// could hold it, and setting it would recurse that deep).
  func checkWritable(_ key: String) throws(StrataError) {
    let depth = SettingKey.names(in: key).count
    if depth > stack.options.maxDepth {
      throw StrataError(
        .nestingTooDeep,
        "cannot write '\(InputLimits.shortened(key))': \(depth) names deep, deeper than the limit of "
          + "\(stack.options.maxDepth) (ParseOptions.maxDepth)")
    }
    let readOnly = state.withLock { $0.registry.readOnlyKey(touching: key) }
    if let readOnly { throw StrataError(.invalidValue, "\(readOnly) is read-only") }
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
