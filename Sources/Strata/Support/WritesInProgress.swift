/// Files a writer has created or written and not yet closed, as the process's file watcher saw them:
/// read now, such a file may be empty or half written. The watcher records them (an `IN_CREATE` of a
/// regular file, an `IN_MODIFY`) and forgets them when they are complete (`IN_CLOSE_WRITE`,
/// `IN_MOVED_TO`) or gone; a layer asked to read one while it holds a last good document keeps that
/// document and reads the file again once it is complete, whatever made the store read it (a `SIGHUP`,
/// an override, an edit of another file).
///
/// A writer that keeps its file open for good (a process appending to it) would hold the file back for
/// good: once it has been left alone for ``patience`` (no write seen), the file is read as it is.
enum WritesInProgress {
  /// How long after the last write seen an unclosed file is held back, in nanoseconds: long enough for
  /// a writer slowed by a busy machine, short enough that a file left open is read in the end.
  static let patience: UInt64 = 10_000_000_000

  private static let lastWrite = Locked<[String: UInt64]>([:])
  /// A writer created or wrote the file at `path` (absolute, as the watcher names it).
  static func begin(_ path: String, at now: UInt64) {
    lastWrite.withLock { $0[path] = now }
  }

  /// The file at `path` is complete (closed, or renamed into place) or gone.
  static func end(_ path: String) {
    lastWrite.withLock { lastWrite in
      if !lastWrite.isEmpty { lastWrite[path] = nil }
    }
  }

  /// Whether the watcher saw the file at `path` (absolute) created or written and not closed.
  static func isOpen(_ path: String) -> Bool {
    lastWrite.withLock { $0[path] != nil }
  }

  /// Whether the file at `path` (absolute) is being written now; when so, when to look again.
  static func retryTime(for path: String, now: UInt64) -> UInt64? {
    lastWrite.withLock { lastWrite -> UInt64? in
      guard let since = lastWrite[path] else { return nil }
      guard now < since + patience else {
        lastWrite[path] = nil
        return nil
      }
      return min(now + 50_000_000, since + patience)
    }
  }
}
