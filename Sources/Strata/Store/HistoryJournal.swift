import StrataPlatform

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// A service's configuration history, one JSON line per entry (``HistoryEntry``) in
/// `DIR/history.jsonl`, appended by a thread of its own so that the reload loop never waits for the
/// disk. Bounded: once the file would pass ``maxBytes`` it becomes `history.1.jsonl` (replacing the one
/// before) and a new file begins, so the two hold at most twice that. The directory is made with mode
/// 0700 and the files 0600: the history names keys and origins (secrets' values are redacted).
package final class HistoryJournal: Sendable {
  /// The directory, as the service sees it.
  package let directory: String
  /// The most bytes one file holds before it is rotated.
  let maxBytes: Int
  /// The most entries waiting for the writer; more are dropped, and the next entry says how many.
  let maxPending: Int
  /// Where files are read and written (`--root`, tests).
  let resolvePath: @Sendable (String) -> String

  private struct State {
    var pending: [HistoryEntry] = []
    /// The standing rollback to write (`.some(nil)`: none stands, remove the file); `nil`: nothing new.
    var rollback: RollbackRecord??
    var dropped = 0
    var stopped = false
    var writing = false
    var thread: JoinableThread?
  }
  private let lock = ConditionLock(State())

  package init(
    directory: String, maxBytes: Int = 1 << 20, maxPending: Int = 10_000,
    resolvePath: @escaping @Sendable (String) -> String = { $0 }
  ) {
    self.directory = directory
    self.maxBytes = maxBytes
    self.maxPending = maxPending
    self.resolvePath = resolvePath
  }

  /// The current file and the one rotated away, oldest first.
  package static func files(in directory: String) -> [String] {
    [joinPath(directory, "history.1.jsonl"), joinPath(directory, "history.jsonl")]
  }

  /// Queues `entry` for the writer (started at the first entry); never waits for the disk.
  func record(_ entry: HistoryEntry) {
    enqueue { state in
      if state.pending.count >= maxPending {
        state.dropped += 1
      } else {
        var entry = entry
        if state.dropped > 0 {
          entry.dropped = state.dropped
          state.dropped = 0
        }
        state.pending.append(entry)
      }
    }
  }

  /// Changes what is queued (unless the writer has stopped) and wakes the writer, started the first
  /// time; never waits for the disk.
  private func enqueue(_ change: (inout State) -> Void) {
    let starts = lock.withLock { state -> Bool in
      guard !state.stopped else { return false }
      change(&state)
      lock.signal()
      guard state.thread == nil else { return false }
      state.thread = JoinableThread.start { [self] in runWriter() }
      return state.thread == nil
    }
    // No thread could start (the process's thread limit): this caller writes, rather than lose it.
    if starts { writePending() }
  }

  /// Writes what is queued, then ends the writer; returns once it has.
  func stop() {
    let thread = lock.withLock { state -> JoinableThread? in
      state.stopped = true
      lock.signal()
      return state.thread
    }
    thread?.join()
    writePending()
  }

  private func runWriter() {
    while true {
      let stopped = lock.wait(while: { $0.pending.isEmpty && $0.rollback == nil && !$0.stopped }) {
        $0.stopped
      }
      writePending()
      if stopped { return }
    }
  }

  /// Queues the standing rollback (`nil`: none stands) for the writer, which keeps it in
  /// ``RollbackRecord/fileName`` so that a restart keeps it too; never waits for the disk.
  func saveRollback(_ record: RollbackRecord?) {
    enqueue { $0.rollback = .some(record) }
  }

  /// The standing rollback kept in `directory`, if any (and readable).
  static func readRollback(directory: String) -> RollbackRecord? {
    let path = joinPath(directory, RollbackRecord.fileName)
    guard let bytes = try? FileReader.read(path, reportedAs: path, limit: RollbackRecord.maxBytes) else {
      return nil
    }
    return try? JSONDecoder().decode(RollbackRecord.self, from: Data(bytes))
  }

  /// Writes the queued rollback, then appends the queued entries.
  private func writePending() {
    let rollback = lock.withLock { state -> RollbackRecord?? in
      defer { state.rollback = nil }
      return state.rollback
    }
    if let rollback {
      let resolved = resolvePath(directory)
      let path = joinPath(resolved, RollbackRecord.fileName)
      if let record = rollback {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        if let data = try? encoder.encode(record) {
          try? AtomicFile.createDirectories(resolved, reportedAs: directory)
          try? AtomicFile.write(Array(data), to: path, reportedAs: path)
        }
      } else {
        unlink(path)
      }
    }
    writeEntries()
  }

  /// Appends the queued entries, rotating the file when it would pass ``maxBytes``.
  private func writeEntries() {
    let entries = lock.withLock { state -> [HistoryEntry] in
      defer { state.pending.removeAll() }
      return state.pending
    }
    guard !entries.isEmpty else { return }
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    let resolved = resolvePath(directory)
    try? AtomicFile.createDirectories(resolved, reportedAs: directory)
    let (previous, current) = (Self.files(in: resolved)[0], Self.files(in: resolved)[1])
    var size = FileSystem.size(of: current) ?? 0
    var text = ""
    func flush() {
      guard !text.isEmpty else { return }
      let fd = open(current, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o600)
      guard fd >= 0 else { return }
      _ = Syscall.writeAll(fd, text)
      close(fd)
      text = ""
    }
    for entry in entries {
      guard let data = try? encoder.encode(entry) else { continue }
      let line = String(decoding: data, as: UTF8.self) + "\n"
      // The file is full: it becomes the previous one (replacing that), and a new one begins.
      if size + text.utf8.count + line.utf8.count > maxBytes && size + text.utf8.count > 0 {
        flush()
        _ = rename(current, previous)
        size = 0
      }
      text += line
    }
    flush()
  }

  /// The entries of the history in `directory`, oldest first, from `since` seconds since 1970 on (a
  /// line that does not decode, such as one cut short by a crash, is skipped).
  package static func read(directory: String, since: Double? = nil) -> [HistoryEntry] {
    let decoder = JSONDecoder()
    var entries: [HistoryEntry] = []
    for file in files(in: directory) {
      // At most the two files' bound, and a little more for a line written past it.
      guard let bytes = try? FileReader.read(file, reportedAs: file, limit: 64 << 20) else { continue }
      for line in bytes.split(separator: UInt8(ascii: "\n")) {
        guard let entry = try? decoder.decode(HistoryEntry.self, from: Data(line)) else { continue }
        if let since, entry.at < since { continue }
        entries.append(entry)
      }
    }
    return entries
  }
}
