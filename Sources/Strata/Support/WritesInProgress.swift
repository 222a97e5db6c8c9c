/// Files a writer has created or written and not yet closed, as the process's file watcher saw them:
/// read now, such a file may be empty or half written. The watcher records them (an `IN_CREATE` of a
/// regular file, an `IN_MODIFY`) and forgets them when they are complete (`IN_CLOSE_WRITE`,
/// `IN_MOVED_TO`) or gone; a layer asked to read one while it holds a last good document keeps that
/// document and reads the file again once it is complete, whatever made the store read it (a `SIGHUP`,
/// an override, an edit of another file).
///
/// A writer that keeps its file open for good (a process appending to it) would hold the file back for
/// good: after ``patience`` the file is read as it is.
enum WritesInProgress {
  /// How long an unclosed write holds a file back, in nanoseconds.
  static let patience: UInt64 = 2_000_000_000

  private static let started = Locked<[String: UInt64]>([:])
  /// A writer created or wrote the file at `path` (absolute, as the watcher names it).
  static func begin(_ path: String, at now: UInt64) {
    started.withLock { started in
      if started[path] == nil { started[path] = now }
    }
  }

  /// The file at `path` is complete (closed, or renamed into place) or gone.
  static func end(_ path: String) {
    started.withLock { started in
      if !started.isEmpty { started[path] = nil }
    }
  }

  /// Whether the file at `path` (absolute) is being written now; when so, when to look again.
  static func retryTime(for path: String, now: UInt64) -> UInt64? {
    started.withLock { started -> UInt64? in
      guard let since = started[path] else { return nil }
      guard now < since + patience else {
        started[path] = nil
        return nil
      }
      return min(now + 50_000_000, since + patience)
    }
  }
}
