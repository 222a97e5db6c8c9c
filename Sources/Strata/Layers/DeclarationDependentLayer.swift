/// A layer that reads the declared keys (``Layer/readsLowerLayers``) and can tell whether keys declared
/// since its last load change what it loads, so that declaring a group loads nothing again (and merges
/// no snapshot) when they do not: a service declaring a thousand groups over an environment that names
/// none of their keys pays for no reload at all.
///
/// A layer of one's own that reads the lower layers is not one: it loads again whenever keys are
/// declared.
protocol DeclarationDependentLayer: Layer {
  /// Whether loading again could give other contents than `last`, the layer's last load, now that
  /// `added` keys (and old names) were declared; `declared` holds every declaration, the new ones
  /// included. `true` whenever it cannot tell.
  func mayChange(
    declaring added: [String], declared: DeclaredKeys, options: ParseOptions, last: LayerContents
  )
    -> Bool
}
