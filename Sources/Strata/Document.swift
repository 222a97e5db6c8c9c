/// A parsed source: the tree of values read from one file (or the environment), with the warnings found
/// while reading it.
public struct Document: Sendable {
  /// The path the document was read from (as given, before any root prefix), or a label such as
  /// `environment` for sources that are not files.
  public var path: String
  /// The values, always a table at the top.
  public var root: SettingValue {
    didSet { environmentIndex = EnvironmentKeyIndex() }
  }
  /// Warnings found while parsing (duplicate keys, unknown directives). Errors are thrown instead.
  public var diagnostics: [Diagnostic]
  /// Other files this document read (INI `!include` and `!includedir`), in the order read.
  package var includedFiles: [String]
  /// Whether every value of the document is a secret (a Kubernetes Secret volume): redacted in dumps.
  public var isSecret = false
  /// The generated environment names of the tables variables have walked through, kept while the
  /// document is (see ``EnvironmentKeyIndex``).
  var environmentIndex = EnvironmentKeyIndex()

  /// Creates a document.
  public init(
    path: String, root: SettingValue, diagnostics: [Diagnostic] = [], includedFiles: [String] = []
  ) {
    self.path = path
    self.root = root
    self.diagnostics = diagnostics
    self.includedFiles = includedFiles
  }
}

/// Limits and hooks that apply while parsing a file.
public struct ParseOptions: Sendable {
  /// The largest file accepted, in bytes (default 16 MiB). A larger file is a `fileTooLarge` error.
  public var maxFileSize: Int
  /// The deepest nesting of arrays and tables accepted (default 512). Deeper is `nestingTooDeep`.
  public var maxDepth: Int
  /// The most files one INI file may include, directly or not (default 256).
  public var maxIncludedFiles: Int
  /// Directories INI `!include` and `!includedir` may read besides the including file's own directory
  /// tree (default none): an include that leaves them (`/etc/shadow`, `../../x`, a link pointing out)
  /// is an `includeOutsideTree` error.
  public var includeDirectories: [String] = []
  /// The most values (keys, scalars, arrays and tables) one document may expand to where a small file
  /// can stand for a large tree: binary property lists whose containers are shared (default 1,000,000).
  /// More is a `tooManyValues` error naming the file.
  public var maxValues: Int
  /// Maps a path as written in a configuration (`/etc/demo/x.ini`) to where it is on disk (under a test
  /// root, say). The default is the identity.
  package var resolvePath: @Sendable (String) -> String
  /// The formats files are read and written with: a file's extension chooses one, drop-ins need one of
  /// their extensions, and `--input-format` names one (default ``FormatRegistry/standard``).
  public var formats: FormatRegistry
  /// What included files must satisfy (the including layer's rules), checked before each is read.
  var fileTrust: FileTrust? = nil

  /// Creates options; every parameter has the default described on its property.
  public init(
    maxFileSize: Int = 16 << 20, maxDepth: Int = 512, maxIncludedFiles: Int = 256, maxValues: Int = 1_000_000,
    resolvePath: @escaping @Sendable (String) -> String = { $0 }, formats: FormatRegistry = .standard
  ) {
    self.formats = formats
    self.maxFileSize = maxFileSize
    self.maxDepth = maxDepth
    self.maxIncludedFiles = maxIncludedFiles
    self.maxValues = maxValues
    self.resolvePath = resolvePath
  }
}
