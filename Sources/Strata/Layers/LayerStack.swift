/// An ordered stack of layers that loads into a ``Snapshot`` once, without a store: what `config-dump`
/// reads (a program uses a ``SettingsStore``, whose ``SettingsStore/snapshot`` is the same merge).
///
/// Layers load lowest first; a layer that reads lower layers (the environment) is given their
/// documents, which is how it knows which variable names mean something.
package struct LayerStack: Sendable {
  /// The layers, lowest scope first.
  package var layers: [any Layer]
  /// Limits and the root prefix used for every file.
  package var options: ParseOptions

  /// Creates a stack. Layers are kept in the order given; give them lowest first.
  package init(layers: [any Layer], options: ParseOptions = ParseOptions()) {
    self.layers = layers
    self.options = options
  }

  /// Loads every layer and merges them.
  /// - Parameters:
  ///   - generation: the generation number of the new snapshot.
  ///   - declaredKeys: keys declared by a schema, known to layers that read lower layers.
  package func load(generation: Int = 1, declaredKeys: [String] = []) -> Snapshot {
    let loaded = StackLoader(layers: layers, options: options).load(
      previous: Array(repeating: nil, count: layers.count), reloading: nil,
      declared: DeclaredKeys(declaredKeys),
      cache: nil)
    return Snapshot(generation: generation, sources: loaded.sources, diagnostics: loaded.diagnostics)
  }
}
