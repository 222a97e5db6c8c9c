/// A layer that can tell a person where to set a key in it: a file's path, an environment variable, a
/// command-line option. Messages about a missing required setting list these places.
protocol PlaceDescribingLayer: Layer {
  /// Where `key` would be set in this layer (`/etc/demo/demo.ini`, `DEMO_SERVER_PORT`,
  /// `--server.port`), or `nil` when a person should not set it here (vendor files).
  /// - Parameters:
  ///   - key: the dotted key.
  ///   - options: the store's options (a root prefix, to see which files exist).
  func placeToSet(key: String, options: ParseOptions) -> String?
}

extension FileLayer: PlaceDescribingLayer {
  /// The main file that exists (the last of them, the one that wins), else the main files as one
  /// pattern (`/etc/demo/demo.{plist,json,ini,env,toml}`: any of them will do); `nil` for the vendor scope,
  /// which belongs to the package.
  func placeToSet(key: String, options: ParseOptions) -> String? {
    guard scope != .vendor else { return nil }
    if let existing = files.last(where: { FileSystem.entry(at: options.resolvePath($0)) != .missing }) {
      return existing
    }
    return Self.pattern(of: files)
  }

  /// `dir/name.{a,b}` for files that differ only in their extension, else the last file.
  static func pattern(of files: [String]) -> String? {
    let stems = files.map { file -> (stem: Substring, ext: Substring)? in
      guard let dot = file.lastIndex(of: "."), !file[dot...].contains("/") else { return nil }
      return (file[..<dot], file[file.index(after: dot)...])
    }
    guard files.count > 1, let first = stems.first ?? nil,
      stems.allSatisfy({ $0?.stem == first.stem })
    else { return files.last }
    return "\(first.stem).{\(stems.compactMap { $0?.ext }.joined(separator: ","))}"
  }
}

extension EnvironmentLayer: PlaceDescribingLayer {
  /// The variable that overrides the key: `DEMO_SERVER_PORT`.
  func placeToSet(key: String, options: ParseOptions) -> String? {
    EnvironmentNames.variableName(forKey: key, prefix: prefix)
  }
}

extension KeyPerFileLayer: PlaceDescribingLayer {
  /// The file named for the key in the directory (`/etc/secrets/db.password`), when the key lies under
  /// the layer's prefix and can be a file name.
  func placeToSet(key: String, options: ParseOptions) -> String? {
    var name = key
    if let keyPrefix {
      guard SettingKey.isKey(key, within: keyPrefix), key != keyPrefix else { return nil }
      name = String(key.dropFirst(keyPrefix.count + 1))
    }
    guard !name.contains("/"), !name.hasPrefix(".") else { return nil }
    return joinPath(directory, name)
  }
}

extension CommandLineLayer: PlaceDescribingLayer {
  /// The option that sets the key: `--server.port`.
  func placeToSet(key: String, options: ParseOptions) -> String? {
    Self.option(forKey: key)
  }
}

extension LayerStack {
  /// Where a person can set `key`, highest layer first: `--server.port`, `DEMO_SERVER_PORT`,
  /// `/etc/demo/demo.ini`.
  package func placesToSet(key: String) -> [String] {
    var seen: Set<String> = []
    return layers.reversed().compactMap {
      ($0 as? any PlaceDescribingLayer)?.placeToSet(key: key, options: options)
    }
    .filter { seen.insert($0).inserted }
  }
}
