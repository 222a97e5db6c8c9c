/// The last good document of each file, with the bytes it was parsed from.
///
/// Reloads read a file whole and compare it with those bytes: an unchanged file reuses its document (so
/// `touch`, an identical rewrite, or the echo of the store's own write cost one read and no parse), an
/// edit inside one top-level member of a JSON file parses only that member again (`DocumentSplice`),
/// and a file that no longer parses keeps its last good document while the error is reported. The cost
/// is a copy of each file's bytes, kept while the store is.
final class DocumentCache: Sendable {
  struct Entry {
    /// The file's bytes, as parsed into `document`.
    var bytes: [UInt8]
    var document: Document
    /// Where the document's top-level members lie in `bytes`, when its format can parse one alone.
    var spans: MemberSpans? = nil
  }

  private let entries = Locked([String: Entry]())
  /// What the unit rule remembers besides documents: units missing or failing now, drop-in listings.
  let units: UnitStates

  /// An empty cache whose units are gone once missing for `grace` (nanoseconds) by `clock`.
  init(grace: UInt64, clock: @escaping @Sendable () -> UInt64 = monotonicNanoseconds) {
    units = UnitStates(grace: grace, clock: clock)
  }

  /// An empty cache.
  init() { units = UnitStates() }

  func lookup(_ path: String) -> Entry? { entries.withLock { $0[path] } }
  func store(_ entry: Entry, for path: String) { entries.withLock { $0[path] = entry } }
  func remove(_ path: String) { _ = entries.withLock { $0.removeValue(forKey: path) } }
}
