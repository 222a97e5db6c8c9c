/// Loads a stack of layers, lowest first: the one loop that both a store and ``LayerStack`` (what
/// `config-dump` uses) go through.
///
/// Each layer is loaded when asked to, or when it has never loaded; a layer that reads lower layers
/// (the environment) loads every time, given the documents below it and the declared keys; contents
/// already fetched (an asynchronous layer) are taken as they are. The others keep their last contents.
/// An asynchronous layer loaded without waiting gives its last good contents or nothing; nothing keeps
/// what it fetched (a reload of every layer does not empty it).
struct StackLoader {
  /// What a load produced.
  struct Result {
    /// The contents of each layer, by index.
    var contents: [LayerContents?]
    /// Every document with its layer's scope, lowest first.
    var sources: [Snapshot.Source]
    /// Every layer's diagnostics, lowest layer first.
    var diagnostics: [Diagnostic]
  }

  /// The layers, lowest first.
  let layers: [any Layer]
  /// Limits and the root prefix.
  let options: ParseOptions

  /// Loads the stack.
  /// - Parameters:
  ///   - previous: each layer's last contents (`nil`: never loaded), by index.
  ///   - reloading: the layers to read again (all, for `nil`).
  ///   - fetched: contents already fetched for some layers.
  ///   - declared: the declared keys, for layers that read lower layers.
  ///   - cache: last good documents of files.
  func load(
    previous: [LayerContents?], reloading: Set<Int>?, fetched: [Int: LayerContents] = [:],
    declared: DeclaredKeys, cache: DocumentCache?
  ) -> Result {
    var result = Result(contents: previous, sources: [], diagnostics: [])
    for (index, layer) in layers.enumerated() {
      let readsLower = layer.readsLowerLayers
      if let ready = fetched[index] {
        result.contents[index] = ready
      } else if reloading?.contains(index) ?? true || readsLower || result.contents[index] == nil {
        let context = LoadContext(
          options: options, declared: declared,
          lowerDocuments: readsLower ? result.sources.map(\.document) : [],
          cache: cache)
        let loaded = layer.load(context)
        // Without waiting, an asynchronous layer gives its last good contents, or nothing: nothing
        // keeps what it fetched.
        let hasNothing = loaded.documents.isEmpty && loaded.diagnostics.isEmpty
        if !(layer.loadsAsynchronously && hasNothing && result.contents[index] != nil) {
          result.contents[index] = loaded
        }
      }
      let contents = result.contents[index]!
      result.diagnostics += contents.diagnostics
      for document in contents.documents {
        result.sources.append(Snapshot.Source(scope: layer.scope, document: document))
      }
    }
    return result
  }
}
