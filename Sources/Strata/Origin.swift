/// Where a value came from: a position in a file, an environment variable, a code default, or a runtime
/// write.
///
/// Every node of a ``SettingValue`` tree carries one, so that any effective setting can say which file
/// and line (or which variable) produced it.
public enum Origin: Sendable, Hashable, CustomStringConvertible {
  /// A position in a file. Lines and columns count from 1; a column counts UTF-8 bytes, as compilers do.
  /// Formats without positions (binary property lists) use line 0 and column 0.
  case file(path: String, line: Int, column: Int)
  /// An environment variable, by its name.
  case environment(variable: String)
  /// A command-line option, as written up to its value: `--server.port`, `--no-debug`.
  case commandLine(option: String)
  /// A key of a remote store, such as etcd: the store's name, the key as the store spells it, and the
  /// revision it was read at (when the store has revisions).
  ///
  /// Indirect, so that the rare remote origin does not make every origin (one per value of every file)
  /// as large as two strings and an optional integer.
  indirect case remote(source: String, key: String, revision: Int?)
  /// A default declared in code.
  case codeDefault
  /// A value set at run time through the store (not from any file).
  case runtime

  /// The text shown in dumps and diagnostics: `/etc/demo/demo.ini:12:8`, `env:DEMO_SERVER_PORT`,
  /// `arg:--server.port`, `etcd:/config/app/server/port@rev 1234`, `default`, `runtime`.
  public var description: String {
    switch self {
    case .file(let path, let line, let column):
      line > 0 ? "\(path):\(line):\(column)" : path
    case .environment(let variable): "env:\(variable)"
    case .commandLine(let option): "arg:\(option)"
    case .remote(let source, let key, let revision):
      revision.map { "\(source):\(key)@rev \($0)" } ?? "\(source):\(key)"
    case .codeDefault: "default"
    case .runtime: "runtime"
    }
  }

  /// The file path, when the origin is a file.
  package var path: String? {
    if case .file(let path, _, _) = self { return path }
    return nil
  }
}
