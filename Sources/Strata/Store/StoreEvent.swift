/// Something that happened to a store's configuration, as told by ``SettingsStore/events``.
public enum StoreEvent: Sendable, CustomStringConvertible {
  /// A new generation was published; `changedKeys` are the leaf keys whose values changed, `files` the
  /// files those values came from (before or after).
  case reloaded(generation: Int, changedKeys: [String], files: [String])
  /// A source could not be read or parsed (a file, a directory, a remote source), and its last good
  /// document stays in use (the error names file:line:column, or the source); or the layers' values
  /// break one of a group's ``SettingsGroup/rules``, and the group keeps every running value (the error
  /// names the rule and each value it read, with its origin).
  case failed(StrataError)
  /// A live edit gave a setting a value that does not convert or validate, and the setting keeps its
  /// running value (the error names file:line:column and the key). The source itself loaded: this is
  /// the value's fault, not the source's.
  case rejected(StrataError)
  /// A problem a `failed` or `rejected` event reported is gone: the source loads, the setting has a
  /// good value again, or the group keeps its rules again (the error is the one that cleared).
  case recovered(StrataError)
  /// A `.restartRequired` setting changed; the program keeps running with the old value.
  case pendingRestart(SettingsStore.PendingRestart)
  /// The watcher could not watch a path with inotify and polls it instead.
  case watcherFallback(path: String, message: String)
  /// A problem of ``SettingsStore/diagnostics`` that no `failed` event tells, once, when it appears:
  /// a value that does not convert or validate (the setting falls back to a lower layer or its
  /// default), an unknown key, an old name in use, an environment name two settings share, a secret in
  /// a file others can read, a file a layer refused. A new subscription to ``SettingsStore/events``
  /// first receives one for every problem standing then, start-up problems included.
  case diagnosed(Diagnostic)
  /// The control socket (``SettingsStore/serveControl(at:onListening:)``) refused a connection: the message names
  /// the connecting process's uid and pid and who may connect.
  case controlRefused(String)
  /// A time-limited override set through the control socket expired and was removed: the key has the
  /// value of the layers again (told first by a `reloaded` event, when that value differs).
  case overrideExpired(key: String)

  /// One line for logs.
  public var description: String {
    switch self {
    case .reloaded(let generation, let keys, let files):
      "reloaded generation \(generation): \(keys.joined(separator: ", ")) (from \(files.joined(separator: ", ")))"
    case .failed(let error): "failed: \(error)"
    case .rejected(let error): "rejected: \(error)"
    case .recovered(let error): "recovered: \(error.location ?? "") is good again (was: \(error.message))"
    case .pendingRestart(let pending): "pending restart: \(pending)"
    case .watcherFallback(let path, let message): "watching \(path) by polling: \(message)"
    case .diagnosed(let diagnostic): diagnostic.description
    case .controlRefused(let message): "control socket: \(message)"
    case .overrideExpired(let key): "override of \(key) expired; the configured value applies again"
    }
  }
}
