import StrataPlatform

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// What the control socket's `status` tells: the running values and everything that differs from them.
extension SettingsStore {
  /// The live configuration: running values with origins, overrides, standing rejected edits, pending
  /// restarts, what differs from the files on disk now, and files that fail to load. Secrets redacted.
  func controlStatus(overrides: RuntimeOverrides?) -> ControlStatus {
    let (boxes, loadedAt) = state.withLock { ($0.registry.declaredBoxes, $0.publishedAt) }
    let snapshot = self.snapshot
    var settings: [ControlValue] = []
    if boxes.isEmpty {
      let shown = snapshot.redacting(snapshot.secretKeys)
      settings = shown.entries.map {
        ControlValue(key: $0.key, value: ValueText.plain($0.value), origin: $0.origin.description)
      }
    }
    var rejected: [ControlProblem] = []
    var differs: [ControlDifference] = []
    let disk = dryLoad(includingRuntime: false)
    for box in boxes {
      let running = box.currentValue()
      let isSecret = box.traits.contains(.secret)
      settings.append(
        ControlValue(key: box.key, value: shown(running.value, isSecret), origin: running.origin.description))
      if let (error, kept) = box.standingRejection() {
        var error = error
        if kept && !error.message.hasSuffix("the running value is kept") {
          error.message += "; the running value is kept"
        }
        rejected.append(ControlProblem(key: box.key, error))
      }
      let onDisk = box.resolvedWithoutApplying(in: disk)
      if onDisk.rejection == nil, onDisk.value != running.value {
        differs.append(
          ControlDifference(
            key: box.key, running: shown(running.value, isSecret), runningOrigin: running.origin.description,
            other: shown(onDisk.value, isSecret), otherOrigin: onDisk.origin.description))
      }
    }
    let runningOrigins = Dictionary(
      settings.map { ($0.key, $0.origin) }, uniquingKeysWith: { first, _ in first })
    return ControlStatus(
      app: app, pid: getpid(), generation: snapshot.generation, loadedAt: ISODateText.format(loadedAt),
      settings: settings, overrides: overrides?.standing ?? [], rejected: rejected,
      pendingRestarts: pendingRestarts.map {
        ControlDifference(
          key: $0.key, running: $0.runningValue, runningOrigin: runningOrigins[$0.key] ?? "",
          other: $0.newValue, otherOrigin: $0.origin.description)
      },
      differsFromDisk: differs,
      failing: snapshot.diagnostics.filter { $0.severity == .error }.map {
        ControlProblem(key: nil, $0.error)
      })
  }

  /// A value as the control socket shows it: plain text, redacted for a secret.
  func shown(_ value: SettingValue?, _ isSecret: Bool) -> String? {
    guard let value else { return nil }
    return isSecret ? redactedText : ValueText.plain(value)
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
