/// The keys each recent generation changed, so that a setting that no reload touched can move to the
/// newest generation with its cached value instead of resolving again (a reload visits only the
/// settings whose keys changed; the others notice on their next read).
///
/// Holds the last ``capacity`` generations; a setting whose cached generation is older than that, or
/// whose generations are not all recorded yet (a read between a snapshot's publication and its record),
/// resolves again, which is always correct.
final class ChangeLog: Sendable {
  /// How many generations are kept.
  static let capacity = 32

  private struct Record {
    var generation: Int
    /// `nil`: every key may have changed.
    var affected: Set<String>?
  }

  private let records = Locked<[Record]>([])

  /// Records the keys a generation changed (see ``Snapshot/Changes/affected``).
  /// `nil` for a generation that may have changed anything.
  func record(generation: Int, affected: Set<String>?) {
    records.withLock { records in
      records.append(Record(generation: generation, affected: affected))
      if records.count > Self.capacity { records.removeFirst(records.count - Self.capacity) }
    }
  }

  /// Whether every generation after `cached`, up to and including `current`, is recorded and changed
  /// none of `keys`.
  func leavesAlone(_ keys: some Collection<String>, after cached: Int, through current: Int) -> Bool {
    guard cached >= 0, current > cached, current - cached <= Self.capacity else { return false }
    return records.withLock { records in
      var covered = 0
      for record in records where record.generation > cached && record.generation <= current {
        guard let affected = record.affected, !keys.contains(where: affected.contains) else { return false }
        covered += 1
      }
      return covered == current - cached
    }
  }
}
