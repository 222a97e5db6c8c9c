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
    var knownKeys: [String] = []
    var known: Set<String> = []
    for layer in layers {
      let contents = layer.load(LoadContext(options: options, knownKeys: knownKeys))
      diagnostics += contents.diagnostics
      for document in contents.documents {
        sources.append((layer.scope, document))
        document.root.forEachLeaf { key, _ in
          if known.insert(key).inserted { knownKeys.append(key) }
        }
      }
    }
    return Snapshot(generation: generation, sources: sources, diagnostics: diagnostics)
  }
}
