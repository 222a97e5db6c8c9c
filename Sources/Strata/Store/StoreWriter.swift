/// A store's writer: where its writes go, and the lock that makes its writes to a file one at a time
/// (read, edit, replace), so that two writers of one store never lose an update. It writes the file
/// only; the store publishes what was written through its reload loop.
final class StoreWriter: Sendable {
  /// Where writes go.
  let target: SettingsStore.WriteTarget
  private let options: ParseOptions
  /// Held while a file is written; the count of writes.
  private let lock = Locked(0)
  /// How long a write waits for another process that holds the directory's lock
  /// (``WriterLock/defaultTimeout``); a test that holds it on a busy machine allows more.
  let lockPatience = Locked(WriterLock.defaultTimeout)

  init(target: SettingsStore.WriteTarget, options: ParseOptions) {
    self.target = target
    self.options = options
  }

  /// Writes `value` at `key` (removes the key, for `nil`) to the file at `path`, holding the writer's
  /// lock (and, inside it, the directory's), unless the file's own value there counts as `value`
  /// already (`isUnchanged`).
  /// - Returns: whether the file was written.
  func write(
    _ value: SettingValue?, forKey key: String, toFile path: String,
    isUnchanged: @escaping (SettingValue?) -> Bool
  ) throws(StrataError) -> Bool {
    try lock.withLock { count throws(StrataError) in
      count += 1
      return try FileWriter.write(
        value, forKey: key, toFile: path, options: options, lockTimeout: lockPatience.withLock { $0 },
        isUnchanged: isUnchanged)
    }
  }
}
