import StrataPlatform

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// The configuration history of a service (``HistoryJournal``): while a store of an app runs, each
/// generation's changes of running values go to its state directory, where `config-dump --running APP
/// --history` reads them, after a restart too.
extension SettingsStore {
  /// Starts the history, for a store of an app that knows its state directory: a `start` entry, then
  /// one per generation. Called when the run loop starts.
  func startHistory() {
    guard let directory = state.withLock({ $0.historyDirectory }) else { return }
    let journal = HistoryJournal(directory: directory, resolvePath: stack.options.resolvePath)
    state.withLock { $0.journal = journal }
    journal.record(Self.historyEntry(generation: snapshot.generation, event: "start"))
  }

  /// The directory the history is written to (resolved under the store's root), while it is.
  var writtenHistoryDirectory: String? {
    guard state.withLock({ $0.journal }) != nil, let directory = state.withLock({ $0.historyDirectory })
    else {
      return nil
    }
    return stack.options.resolvePath(directory)
  }

  /// Writes what is queued and ends the history. Called when the run loop ends.
  func stopHistory() {
    let journal = state.withLock { state in
      defer { state.journal = nil }
      return state.journal
    }
    journal?.stop()
  }

  /// Records the running values `changes` changed from `previous` to `current` (not those a rejected
  /// edit or a pending restart kept, `keptKeys`), each with its cause; `heldKeys` are those of groups
  /// that keep their running values for a broken rule, `rolledBack` those a rollback put back.
  func recordHistory(
    _ changes: Snapshot.Changes, from previous: Snapshot, to current: Snapshot, keptKeys: [String],
    heldKeys: Set<String>, rolledBack: Set<String> = []
  ) {
    guard let journal = state.withLock({ $0.journal }), previous.generation > 0 else { return }
    let kept = Set(keptKeys)
    func shown(_ entry: Snapshot.Entry?) -> String? {
      guard let entry else { return nil }
      return entry.isSecret ? redactedText : ValueText.plain(entry.value)
    }
    var recorded: [HistoryEntry.Change] = []
    var omitted = 0
    for key in changes.changedValues + changes.removed where !kept.contains(key) {
      // Past the limit, the entry only says how many more.
      if recorded.count == HistoryEntry.maxChanges {
        omitted += 1
        continue
      }
      let (old, new) = (previous.entry(forKey: key), current.entry(forKey: key))
      guard let origin = (new ?? old)?.value.origin else { continue }
      recorded.append(
        HistoryEntry.Change(
          key: key, old: shown(old), new: shown(new), origin: origin.description,
          cause: new == nil
            ? "removed"
            : rolledBack.contains(key)
              ? "rollback" : HistoryEntry.cause(of: origin, held: heldKeys.contains(key))))
    }
    guard !recorded.isEmpty else { return }
    var entry = Self.historyEntry(generation: current.generation, event: "change", changes: recorded)
    entry.omitted = omitted > 0 ? omitted : nil
    journal.record(entry)
  }

  private static func historyEntry(generation: Int, event: String, changes: [HistoryEntry.Change]? = nil)
    -> HistoryEntry
  {
    let now = Date()
    return HistoryEntry(
      time: ISODateText.format(now), at: now.timeIntervalSince1970, generation: generation, event: event,
      changes: changes)
  }
}
