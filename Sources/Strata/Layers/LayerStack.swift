/// An ordered stack of layers that loads into a ``Snapshot``.
///
/// Layers load lowest first; each is given the keys of the layers below it, which is how the
/// environment layer knows which variable names mean something.
public struct LayerStack: Sendable {
  /// The layers, lowest scope first.
  public var layers: [any Layer]
  /// Limits and the root prefix used for every file.
  public var options: ParseOptions

  /// Creates a stack. Layers are kept in the order given; give them lowest first.
  public init(layers: [any Layer], options: ParseOptions = ParseOptions()) {
    self.layers = layers
    self.options = options
  }

  /// Loads every layer and merges them.
  /// - Parameter generation: the generation number of the new snapshot.
  public func load(generation: Int = 1) -> Snapshot {
    var sources: [(scope: Scope, document: Document)] = []
    var diagnostics: [Diagnostic] = []
    for layer in layers {
      // Only the environment layer needs the keys of the files below it (walking every leaf).
      let known = layer is EnvironmentLayer ? Self.leafKeys(of: sources.map(\.document)) : []
      let contents = layer.load(LoadContext(options: options, knownKeys: known))
      diagnostics += contents.diagnostics
      for document in contents.documents {
        sources.append((layer.scope, document))
      }
    }
    return Snapshot(generation: generation, sources: sources, diagnostics: diagnostics)
  }

  /// Every leaf key of the documents, each once, in order of first appearance.
  static func leafKeys(of documents: [Document]) -> [String] {
    var keys: [String] = []
    var seen: Set<String> = []
    for document in documents {
      document.root.forEachLeaf { key, _ in
        if seen.insert(key).inserted { keys.append(key) }
      }
    }
    return keys
  }
}
