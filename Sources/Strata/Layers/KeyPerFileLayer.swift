/// A directory where each file is one setting: the file's name is the key, its content the value — the
/// shape of a Kubernetes ConfigMap or Secret volume (`/etc/secrets/db.password` holds the password).
/// The name is read as a key (see ``SettingKey``): `db.password` sets `password` in table `db`.
///
/// Names starting with `.` are skipped (kubelet's `..data` link and `..2024_…` directories, editor
/// temporaries), as are `~` backups and sub-directories. Symlinks are followed, so the `..data` swap
/// of a volume update is read as one consistent set. One trailing newline is trimmed. Values are strings
/// and, by default, secrets: redacted in dumps.
public struct KeyPerFileLayer: Layer {
  /// Where the layer sits.
  public var scope: Scope
  /// A label for messages.
  public var name: String
  /// The directory.
  public var directory: String
  /// A key prefix: with `database`, the file `password` sets `database.password`.
  public var keyPrefix: String?
  /// Whether the values are secrets (default `true`).
  public var isSecret: Bool
  /// The most files read; more is an error and only the first ones (by name) load.
  public var maxFiles: Int

  /// Creates the layer.
  public init(
    scope: Scope = .system, directory: String, keyPrefix: String? = nil, isSecret: Bool = true,
    maxFiles: Int = 1000
  ) {
    self.scope = scope
    self.name = directory
    self.directory = directory
    self.keyPrefix = keyPrefix
    self.isSecret = isSecret
    self.maxFiles = maxFiles
  }

  /// Signals from the store's inotify watcher: the directory and its files (the `..data` swap of a volume).
  public func follow(_ watch: LayerWatch, signal: @escaping @Sendable (LayerChange) -> Void) async {
    await watch.followFiles(signal: signal)
  }

  /// Reads every file of the directory; a missing directory is an absent layer.
  public func load(_ context: LoadContext) -> LayerContents {
    var contents = LayerContents(paths: [directory])
    let options = context.options
    let names: [String]
    do {
      guard
        let listed = try FileSystem.contents(
          ofDirectory: options.resolvePath(directory), reportedAs: directory)
      else { return contents }
      names = listed.filter { !$0.hasPrefix(".") && !$0.hasSuffix("~") && $0 != "4913" }.sorted()
    } catch {
      contents.diagnostics.append(Diagnostic(.error, error))
      return contents
    }
    var root = SettingValue.emptyTable(origin: .file(path: directory, line: 0, column: 0))
    for (index, fileName) in names.enumerated() {
      if index == maxFiles {
        contents.diagnostics.append(
          Diagnostic(
            .error,
            StrataError(
              .tooManyFiles, "more than \(maxFiles) files; the rest are not loaded", path: directory)))
        break
      }
      let path = joinPath(directory, fileName)
      if FileSystem.isDirectory(options.resolvePath(path)) { continue }
      do throws(StrataError) {
        guard
          var bytes = try FileReader.read(
            options.resolvePath(path), reportedAs: path, limit: options.maxFileSize)
        else { continue }  // a dangling link during a swap: the next event re-reads
        if bytes.last == UInt8(ascii: "\n") { bytes.removeLast() }
        if bytes.last == UInt8(ascii: "\r") { bytes.removeLast() }
        guard let text = String(validating: bytes, as: UTF8.self) else {
          throw StrataError(.invalidUTF8, "the file is not UTF-8 text", path: path)
        }
        // The file's name is a key: `db.password` sets `password` in table `db` (see SettingKey).
        let key = keyPrefix.map { $0 + "." + fileName } ?? fileName
        root.set(SettingValue(.string(text), origin: .file(path: path, line: 1, column: 1)), at: key)
      } catch {
        contents.diagnostics.append(Diagnostic(.error, error))
      }
    }
    var document = Document(path: directory, root: root)
    document.isSecret = isSecret
    contents.documents.append(document)
    return contents
  }
}
