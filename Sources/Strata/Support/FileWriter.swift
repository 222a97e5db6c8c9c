/// Applies one write to a configuration file: lock the directory against other writers, read, edit,
/// replace atomically.
enum FileWriter {
  static func write(_ value: SettingValue?, forKey key: String, toFile path: String, options: ParseOptions)
    throws(StrataError)
  {
    guard let format = options.formats.format(forPath: path) else {
      throw StrataError(.unsupportedFormat, "cannot write: unknown file type", path: path)
    }
    // A link is written through: the file it points to is replaced, and the link stays.
    let resolved = try WritePath.target(of: options.resolvePath(path), reportedAs: path)
    try AtomicFile.createDirectories(directoryPart(of: resolved), reportedAs: directoryPart(of: path))
    try WriterLock.withLock(directory: directoryPart(of: resolved), reportedAs: path) {
      () throws(StrataError) in
      let existing = try FileReader.read(resolved, reportedAs: path, limit: options.maxFileSize) ?? []
      let bytes: [UInt8]
      if let editor = format as? any EditableFormat {
        bytes = try editor.edit(existing, setting: value, at: key, path: path, options: options)
      } else {
        var root = SettingValue.emptyTable(origin: .file(path: path, line: 0, column: 0))
        if !existing.isEmpty { root = try format.parse(existing, path: path, options: options).root }
        if let value { root.set(value, at: key) } else { root.remove(at: key) }
        bytes = try format.serialize(root)
      }
      try AtomicFile.write(bytes, to: resolved, reportedAs: path)
    }
  }
}
