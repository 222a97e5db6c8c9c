/// A source of configuration at one scope: files (with their drop-ins), the environment, the command
/// line, a directory of key-per-file values, a remote store, code defaults.
///
/// A layer turns what it reads into documents. Loading never throws: a file that cannot be read or
/// parsed becomes an error diagnostic, and the rest of the stack still loads. A file that does not exist
/// is simply absent. While the store runs (``SettingsStore/run(reloadOnHangup:notifySystemd:onReady:healthCheck:rollbackWindow:)``),
/// it watches every path a layer that loads without waiting reported (``LayerContents/paths``) and
/// loads the layer again when one of them may have changed; a source that changes by itself (a remote
/// store) says so through ``follow(signal:)``, which the store runs as a child task.
public protocol Layer: Sendable {
  /// Where the layer sits in the stack.
  var scope: Scope { get }
  /// A short label for messages, such as `system` or `/etc/demo/demo.ini`.
  var name: String { get }
  /// Loads the layer's documents now, lowest first. A layer that must wait for a server returns what it
  /// has without waiting (its last good contents, or nothing) and loads in ``fetch(_:)``.
  /// - Parameter context: limits, the declared keys and the documents of the layers below (the
  ///   environment layer maps variable names onto their keys).
  func load(_ context: LoadContext) -> LayerContents
  /// Whether what the layer loads depends on the layers below it and on the declared keys (as the
  /// environment layer's does): such a layer loads again whenever those change. Default `false`.
  var readsLowerLayers: Bool { get }
  /// Whether the layer must wait to load (a server): the store's run loop then awaits ``fetch(_:)``
  /// when it starts and after each of the layer's signals, instead of calling ``load(_:)``.
  /// Default `false`.
  var loadsAsynchronously: Bool { get }
  /// Loads the layer's documents, waiting as long as the layer must; it returns promptly when the task
  /// is cancelled. Default: ``load(_:)``.
  func fetch(_ context: LoadContext) async -> LayerContents
  /// Follows the layer's source until the task is cancelled, calling `signal` each time the layer's
  /// contents may have changed; returns promptly once cancelled. The store runs it as a child task of
  /// its run loop, so every task the layer needs (a connection, a retry timer) belongs inside it.
  ///
  /// `signal` only says "load me again": it never reads, parses or publishes, and it never blocks, so it
  /// may be called from any thread (a network client's). Signals that come while the store is loading
  /// are coalesced into one load. Files need no `follow`: the store watches the paths the layer
  /// reported. The default returns at once: the layer changes only with its files, if any.
  func follow(signal: @escaping @Sendable () -> Void) async
}

extension Layer {
  /// `false`: the layer's contents depend only on what it reads.
  public var readsLowerLayers: Bool { false }
  /// `false`: the layer loads without waiting.
  public var loadsAsynchronously: Bool { false }
  /// ``load(_:)``.
  public func fetch(_ context: LoadContext) async -> LayerContents { load(context) }
  /// Returns at once: the layer changes only with its files, if any.
  public func follow(signal: @escaping @Sendable () -> Void) async {}
}

/// What a layer is given when it loads.
public struct LoadContext: Sendable {
  /// Parsing limits and the root prefix.
  public var options: ParseOptions
  /// The keys declared by registered settings (or a schema), in order.
  public var declaredKeys: [String] {
    get { declared.keys }
    set { declared = DeclaredKeys(newValue) }
  }
  /// The declared keys with their environment names.
  var declared: DeclaredKeys
  /// The documents of the layers below, lowest first.
  public var lowerDocuments: [Document]
  /// The last good document of each file, for stores that reload (`nil`: always parse).
  var cache: DocumentCache?

  /// Creates a context.
  public init(
    options: ParseOptions = ParseOptions(), declaredKeys: [String] = [], lowerDocuments: [Document] = []
  ) {
    self.init(
      options: options, declared: DeclaredKeys(declaredKeys), lowerDocuments: lowerDocuments, cache: nil)
  }

  /// Creates a context whose file layers reuse the documents of `cache` (a store's).
  init(
    options: ParseOptions = ParseOptions(), declaredKeys: [String] = [], lowerDocuments: [Document] = [],
    cache: DocumentCache?
  ) {
    self.init(
      options: options, declared: DeclaredKeys(declaredKeys), lowerDocuments: lowerDocuments, cache: cache)
  }

  /// Creates a context from declared keys whose names are already known.
  init(options: ParseOptions, declared: DeclaredKeys, lowerDocuments: [Document], cache: DocumentCache?) {
    self.options = options
    self.declared = declared
    self.lowerDocuments = lowerDocuments
    self.cache = cache
  }
}

/// What a layer produced: its documents (lowest first) and the problems found.
public struct LayerContents: Sendable {
  /// The documents, lowest first; later ones override earlier ones.
  public var documents: [Document]
  /// Errors (files that were skipped) and warnings.
  public var diagnostics: [Diagnostic]
  /// Every path the layer looked at, existing or not: a running store watches them (for a layer that
  /// loads without waiting) and loads the layer again when one may have changed.
  public var paths: [String]
  /// When a running store reads the layer again by itself (monotonic nanoseconds): a unit that failed
  /// or went missing keeps its last good contents and is retried then (see ``UnitStates``).
  var retryAt: UInt64? = nil

  /// Creates contents.
  public init(documents: [Document] = [], diagnostics: [Diagnostic] = [], paths: [String] = []) {
    self.documents = documents
    self.diagnostics = diagnostics
    self.paths = paths
  }
}

/// A layer whose values are given in code (defaults, tests, runtime values).
package struct StaticLayer: Layer {
  /// Where the layer sits.
  package var scope: Scope
  /// A label for messages.
  package var name: String
  /// The values: a table.
  package var root: SettingValue

  /// Creates a layer from a tree of values.
  package init(scope: Scope, name: String? = nil, root: SettingValue) {
    self.scope = scope
    self.name = name ?? scope.description
    self.root = root
  }

  /// Returns the values as one document.
  package func load(_ context: LoadContext) -> LayerContents {
    LayerContents(documents: [Document(path: name, root: root)])
  }
}
