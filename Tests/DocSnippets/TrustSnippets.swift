import Strata

/// Trust.md.
enum Trust {
  static func limits() -> SettingsStore {
    // snippet: limits
    let layout = StandardLayout(app: "demo")
    var options = ParseOptions(maxFileSize: 1 << 20, maxDepth: 64)
    options.includeDirectories = ["/usr/share/demo"]
    let store = SettingsStore(layers: layout.layers, options: layout.options(options))
    // snippet: end
    return store
  }
}
