/// A directory where each file is one setting: the file's name is the key, its content the value — the
/// shape of a Kubernetes ConfigMap or Secret volume (`/etc/secrets/db.password` holds the password).
/// The name is read as a key (see ``SettingKey``): `db.password` sets `password` in table `db`.
///
/// Names starting with `.` are skipped (kubelet's `..data` link and `..2024_…` directories, editor
/// temporaries), as are `~` backups and sub-directories. Every key of one read comes from the one
/// version `..data` named (see ``load(_:)``), so a volume update is read as one consistent set. One trailing newline is trimmed. Values are strings
/// and, by default, secrets: redacted in dumps.
public struct KeyPerFileLayer: Layer {
  /// Where the layer sits.
  public var scope: Scope
  /// A label for messages.
  public var name: String
  /// The directory.
  var directory: String
  /// A key prefix: with `database`, the file `password` sets `database.password`.
  var keyPrefix: String?
  /// Whether the values are secrets (default `true`).
  var isSecret: Bool
  /// The most files read; more is an error and only the first ones (by name) load.
  var maxFiles: Int

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

  /// Reads every file of the directory; a missing directory is an absent layer.
  ///
  /// The directory is one unit (see <doc:EditToGeneration>): in a Kubernetes volume, every key is read through the
  /// one version `..data` named when the read began (its `..2026_…` directory), and the read is started again
  /// if `..data` was swapped meanwhile. In a running store, a read that fails (a key unreadable,
  /// `EMFILE`, the listing refused) or that keeps meeting swaps keeps the last good set whole and is
  /// retried; a directory that vanished keeps it through the grace period. Without a last good set (the
  /// first load, or `config-dump`), the keys that could be read load and each failure is an error.
  public func load(_ context: LoadContext) -> LayerContents {
    var contents = LayerContents(paths: [directory])
    let units = context.cache?.units
    let unit = "key-per-file:" + directory
    let lastGood = units?.document(unit)
    for _ in 0..<3 {
      let read = read(context.options)
      switch read {
      case .swapped:
        continue
      case .missing:
        guard let units, let lastGood else {
          units?.storeDocument(nil, for: unit)
          units?.loaded(unit)
          return contents
        }
        switch units.missing(unit) {
        case .pending(let retryAt):
          contents.documents.append(lastGood)
          contents.retry(at: retryAt)
        case .gone:
          units.storeDocument(nil, for: unit)
        }
        return contents
      case .read(let document, let errors):
        contents.diagnostics += errors.map { Diagnostic(.error, $0) }
        if let units {
          if errors.isEmpty {
            units.storeDocument(document, for: unit)
            units.loaded(unit)
          } else {
            contents.retry(at: units.failed(unit))
            if let lastGood {
              contents.documents.append(lastGood)
              return contents
            }
          }
        }
        contents.documents.append(document)
        return contents
      }
    }
    // `..data` was swapped during every attempt: no set read is one version.
    contents.diagnostics.append(
      Diagnostic(
        .error,
        StrataError(
          .unreadable, "the volume changed during each of 3 reads; the last good keys are kept",
          path: directory)))
    if let units {
      contents.retry(at: units.failed(unit))
      if let lastGood { contents.documents.append(lastGood) }
    }
    return contents
  }

  private enum Read {
    /// The directory does not exist.
    case missing
    /// `..data` named another version after the read than before it.
    case swapped
    /// The keys read, and the errors of those that could not be.
    case read(Document, errors: [StrataError])
  }

  /// Reads the directory once, through one pinned `..data` when it has one.
  private func read(_ options: ParseOptions) -> Read {
    let resolved = options.resolvePath(directory)
    let pinned = KubeletVolume.pin(resolved)
    let names: [String]
    do {
      guard let listed = try FileSystem.contents(ofDirectory: resolved, reportedAs: directory) else {
        return .missing
      }
      names = listed.filter { !$0.hasPrefix(".") && !$0.hasSuffix("~") && $0 != "4913" }.sorted()
    } catch {
      return .read(emptyDocument, errors: [error])
    }
    var errors: [StrataError] = []
    var root = SettingValue.emptyTable(origin: .file(path: directory, line: 0, column: 0))
    for (index, fileName) in names.enumerated() {
      if index == maxFiles {
        errors.append(
          StrataError(.tooManyFiles, "more than \(maxFiles) files; the rest are not loaded", path: directory))
        break
      }
      let path = joinPath(directory, fileName)
      let onDisk =
        pinned.map { KubeletVolume.path(of: fileName, in: resolved, pinned: $0) } ?? options.resolvePath(path)
      if FileSystem.isDirectory(onDisk) { continue }
      do throws(StrataError) {
        guard var bytes = try FileReader.read(onDisk, reportedAs: path, limit: options.maxFileSize) else {
          continue  // removed in this version (its link goes with the next swap), or removed now
        }
        if bytes.last == UInt8(ascii: "\n") { bytes.removeLast() }
        if bytes.last == UInt8(ascii: "\r") { bytes.removeLast() }
        guard let text = String(validating: bytes, as: UTF8.self) else {
          throw StrataError(.invalidUTF8, "the file is not UTF-8 text", path: path)
        }
        // The file's name is a key: `db.password` sets `password` in table `db` (see SettingKey).
        let key = keyPrefix.map { $0 + "." + fileName } ?? fileName
        root.set(SettingValue(.string(text), origin: .file(path: path, line: 1, column: 1)), at: key)
      } catch {
        errors.append(error)
      }
    }
    if let pinned, KubeletVolume.pin(resolved) != pinned { return .swapped }
    var document = Document(path: directory, root: root)
    document.isSecret = isSecret
    return .read(document, errors: errors)
  }

  private var emptyDocument: Document {
    var document = Document(
      path: directory, root: .emptyTable(origin: .file(path: directory, line: 0, column: 0)))
    document.isSecret = isSecret
    return document
  }
}
