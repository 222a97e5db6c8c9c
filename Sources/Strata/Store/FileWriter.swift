/// Applies one write to a configuration file: lock the directory against other writers, read, edit,
/// replace atomically.
enum FileWriter {
  /// Writes `value` at `key` (removes the key, for `nil`), unless what the file holds there already is
  /// the same: then the file is left alone.
  /// - Parameters:
  ///   - isUnchanged: whether the file's own value at the key (`nil`: none) counts as `value` (by
  ///     default, equal content); the merged value of the other layers plays no part.
  ///   - lockTimeout: how long to wait for another writer's lock on the directory.
  /// - Returns: whether the file was written.
  @discardableResult
  static func write(
    _ value: SettingValue?, forKey key: String, toFile path: String, options: ParseOptions,
    lockTimeout: Duration = WriterLock.defaultTimeout, isUnchanged: ((SettingValue?) -> Bool)? = nil
  ) throws(StrataError) -> Bool {
    guard let format = options.formats.format(forPath: path) else {
      throw StrataError(.unsupportedFormat, "cannot write: unknown file type", path: path)
    }
    // A link is written through: the file it points to is replaced, and the link stays.
    let resolved = try WritePath.target(of: options.resolvePath(path), reportedAs: path)
    try AtomicFile.createDirectories(directoryPart(of: resolved), reportedAs: directoryPart(of: path))
    return try WriterLock.withLock(
      directory: directoryPart(of: resolved), reportedAs: path, timeout: lockTimeout
    ) {
      () throws(StrataError) in
      let existing = try FileReader.read(resolved, reportedAs: path, limit: options.maxFileSize) ?? []
      var root = SettingValue.emptyTable(origin: .file(path: path, line: 0, column: 0))
      if !existing.isEmpty { root = try format.parse(existing, path: path, options: options).root }
      let current = root.value(at: key)
      if isUnchanged?(current) ?? (current == value) { return false }
      let bytes: [UInt8]
      if let editor = format as? any EditableFormat {
        bytes = try editor.edit(existing, setting: value, at: key, path: path, options: options)
      } else {
        if let value { root.set(value, at: key) } else { root.remove(at: key) }
        bytes = try format.serialize(root)
      }
      if bytes == existing { return false }
      try AtomicFile.write(bytes, to: resolved, reportedAs: path)
      return true
    }
  }
}
