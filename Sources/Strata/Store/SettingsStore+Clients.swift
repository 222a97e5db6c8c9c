#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// What the store's clients outside it (the control socket) read and change, and nothing more: the
/// declared settings, the runtime layer's values, and a load that publishes nothing. Every change goes
/// through the store's reload loop.
extension SettingsStore {
  /// The setting declared at `key` (or one of its old names), if any.
  func declaredSetting(forKey key: String) -> (any AnySettingBox)? {
    state.withLock { $0.registry[key]?.first }
  }

  /// Every declared setting, in declaration order.
  var declaredSettings: [any AnySettingBox] {
    state.withLock { $0.registry.declaredBoxes }
  }

  /// When the current generation was published.
  var publishedAt: Date {
    state.withLock { $0.publishedAt }
  }

  /// The runtime layer's own value at `key` (`nil`: none).
  func runtimeValue(at key: String) -> SettingValue? {
    state.withLock { $0.runtime.value(at: key) }
  }

  /// Puts `replacement` (removes the key, for `nil`) in the runtime layer at `key` if the value there is
  /// still `expected`, and publishes it through the loop; returns once it is published.
  /// - Returns: whether the value was still `expected`.
  @discardableResult
  func replaceRuntimeValue(at key: String, ifStill expected: SettingValue, with replacement: SettingValue?)
    -> Bool
  {
    let unchanged = state.withLock { state in
      guard state.runtime.value(at: key) == expected else { return false }
      if let replacement {
        state.runtime.set(replacement, at: key)
      } else {
        state.runtime.remove(at: key)
      }
      return true
    }
    if unchanged { rebuild(reloading: []) }
    return unchanged
  }

  /// The snapshot the layers give now, read from disk without publishing anything or touching the
  /// store's caches (a file that fails is left out, with its error), optionally with the runtime layer
  /// and with one file's document replaced (a plan's candidate). Layers that load asynchronously (a
  /// remote store) keep their last contents.
  func dryLoad(includingRuntime: Bool, replacing replaced: Document? = nil) -> Snapshot {
    let (contents, declared, runtime, secretKeys) = state.withLock {
      ($0.contents, $0.registry.declared, $0.runtime, $0.registry.secretKeys)
    }
    let loaded = StackLoader(layers: stack.layers, options: stack.options).load(
      previous: contents, reloading: nil, declared: declared, cache: nil)
    var sources = loaded.sources
    var diagnostics = loaded.diagnostics
    if let replaced {
      sources = sources.map { source in
        var source = source
        if source.document.path == replaced.path { source.document = replaced }
        return source
      }
      diagnostics.removeAll { $0.error.path == replaced.path && $0.severity == .error }
    }
    if includingRuntime, runtime.table?.isEmpty == false {
      sources.append(Snapshot.Source(scope: .runtime, document: Document(path: "runtime", root: runtime)))
    }
    return Snapshot(
      generation: snapshot.generation + 1, sources: sources, diagnostics: diagnostics, secretKeys: secretKeys)
  }
}
