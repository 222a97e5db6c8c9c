/// One line of a service's configuration history (``HistoryJournal``): a generation's changes, or the
/// start of a run.
package struct HistoryEntry: Codable, Sendable, Equatable {
  /// When, in ISO 8601 (UTC), and in seconds since 1970 (for `--since`).
  package var time: String
  package var at: Double
  /// The generation, or the one the run started with.
  package var generation: Int
  /// `start` (a run began: the process started or restarted) or `change`.
  package var event: String
  /// The running values that changed, when `event` is `change`.
  package var changes: [Change]?
  /// How many entries before this one were dropped because the writer fell behind (`nil`: none).
  package var dropped: Int?
  /// How many more changes the generation made than `changes` lists (``maxChanges``; `nil`: none).
  package var omitted: Int?

  /// The most changes one entry lists: a generation that read 100,000 keys anew is one line of
  /// bounded size.
  package static let maxChanges = 1000

  /// A key's running value before and after (`nil`: absent), where the new one came from (the old
  /// one's place, when the key was removed), and what caused the change.
  package struct Change: Codable, Sendable, Equatable {
    package var key: String
    package var old: String?
    package var new: String?
    package var origin: String
    /// `file`, `environment`, `option`, `override`, `remote` (etcd), `rule` (a group's running values
    /// held by a broken rule), `rollback` (the service turned unhealthy), `default` or `removed`.
    package var cause: String

    package init(key: String, old: String?, new: String?, origin: String, cause: String) {
      (self.key, self.old, self.new, self.origin, self.cause) = (key, old, new, origin, cause)
    }
  }

  package init(
    time: String, at: Double, generation: Int, event: String, changes: [Change]? = nil, dropped: Int? = nil
  ) {
    (self.time, self.at, self.generation, self.event) = (time, at, generation, event)
    (self.changes, self.dropped) = (changes, dropped)
  }

  /// What caused a value with `origin` (from the source at `path`, when it is a held group's).
  static func cause(of origin: Origin, held: Bool) -> String {
    if held { return "rule" }
    switch origin {
    case .file: return "file"
    case .environment: return "environment"
    case .commandLine: return "option"
    case .runtime: return "override"
    case .remote: return "remote"
    case .codeDefault: return "default"
    }
  }
}
