/// A source of configuration at one scope: a file (with its drop-ins), the environment, code defaults.
///
/// A layer turns what it reads into documents. Loading never throws: a file that cannot be read or
/// parsed becomes an error diagnostic, and the rest of the stack still loads. A file that does not exist
/// is simply absent.
public protocol Layer: Sendable {
  /// Where the layer sits in the stack.
  var scope: Scope { get }
  /// A short label for messages, such as `system` or `/etc/demo/demo.ini`.
  var name: String { get }
  /// Loads the layer's documents, lowest first.
  /// - Parameter context: limits, and the keys known from lower layers (the environment layer maps
  ///   variable names onto them).
  func load(_ context: LoadContext) -> LayerContents
}

/// What a layer is given when it loads.
public struct LoadContext: Sendable {
  /// Parsing limits and the root prefix.
  public var options: ParseOptions
  /// Every leaf key of the layers below, in order; the environment layer maps variables onto these.
  public var knownKeys: [String]
  /// The last good document of each file, for stores that reload (`nil`: always parse).
  public var cache: DocumentCache?

  /// Creates a context.
  public init(options: ParseOptions = ParseOptions(), knownKeys: [String] = [], cache: DocumentCache? = nil) {
    self.options = options
    self.knownKeys = knownKeys
    self.cache = cache
  }
}

/// What a layer produced: its documents (lowest first) and the problems found.
public struct LayerContents: Sendable {
  /// The documents, lowest first; later ones override earlier ones.
  public var documents: [Document]
  /// Errors (files that were skipped) and warnings.
  public var diagnostics: [Diagnostic]
  /// Every path the layer looked at, existing or not, so a watcher can watch them.
  public var paths: [String]

  /// Creates contents.
  public init(documents: [Document] = [], diagnostics: [Diagnostic] = [], paths: [String] = []) {
    self.documents = documents
    self.diagnostics = diagnostics
    self.paths = paths
  }
}

/// A layer whose values are given in code (defaults, tests, runtime values).
public struct StaticLayer: Layer {
  /// Where the layer sits.
  public var scope: Scope
  /// A label for messages.
  public var name: String
  /// The values: a table.
  public var root: SettingValue

  /// Creates a layer from a tree of values.
  public init(scope: Scope, name: String? = nil, root: SettingValue) {
    self.scope = scope
    self.name = name ?? scope.description
    self.root = root
  }

  /// Returns the values as one document.
  public func load(_ context: LoadContext) -> LayerContents {
    LayerContents(documents: [Document(path: name, root: root)])
  }
}
