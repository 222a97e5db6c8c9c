import Glibc

extension SettingsStore {
  /// Watches every file and directory of the layers and reloads what changes, until the task is
  /// cancelled (shaped like a swift-service-lifecycle `Service`).
  ///
  /// Each hint from the watcher re-reads the files it names; a file whose content is unchanged (a
  /// `touch`, an identical rewrite, the echo of the store's own write) changes nothing. Watcher
  /// fallbacks are reported as ``StoreEvent/watcherFallback(path:message:)`` events.
  /// - Parameters:
  ///   - reloadOnHangup: also re-read everything on `SIGHUP` (installs a process-wide handler).
  ///   - onReady: called once every path is watched: changes from then on are seen.
  public func run(reloadOnHangup: Bool = false, onReady: @Sendable () -> Void = {}) async {
    await run(watcher: FileWatcher(), reloadOnHangup: reloadOnHangup, onReady: onReady)
  }

  /// ``run(reloadOnHangup:)`` with a given watcher (tests drive one with `pump()`).
  func run(watcher: FileWatcher, reloadOnHangup: Bool = false, onReady: @Sendable () -> Void = {}) async {
    if reloadOnHangup { watcher.rescanOnHangup() }
    // The watcher sees real paths (under the root); reloads speak of paths as the app sees them.
    var reportedByReal = watchTargets(watcher)
    onReady()
    await withTaskCancellationHandler {
      for await batch in watcher.changes {
        for fallback in batch.fallbacks {
          emit(.watcherFallback(path: fallback.path, message: fallback.message))
        }
        let paths = Set(batch.paths.compactMap { reportedByReal[$0] })
        guard !paths.isEmpty else { continue }
        reload(paths: paths)
        // New includes, or a drop-in directory that appeared, change what must be watched.
        if Set(watchedPaths) != Set(reportedByReal.values) { reportedByReal = watchTargets(watcher) }
      }
    } onCancel: {
      watcher.stop()
    }
  }

  private func watchTargets(_ watcher: FileWatcher) -> [String: String] {
    var reportedByReal: [String: String] = [:]
    for path in watchedPaths { reportedByReal[absolutePath(stack.options.resolvePath(path))] = path }
    watcher.setTargets(Array(reportedByReal.keys))
    return reportedByReal
  }
}

/// `path` made absolute against the current directory.
func absolutePath(_ path: String) -> String {
  guard !path.hasPrefix("/") else { return path }
  var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
  guard getcwd(&buffer, buffer.count) != nil else { return path }
  let directory = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
  return joinPath(directory, path.hasPrefix("./") ? String(path.dropFirst(2)) : path)
}
