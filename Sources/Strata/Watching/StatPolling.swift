import StrataPlatform

/// The backend with no events: every target is polled by its stat signature (``StatPoller``). The
/// store uses it where no event backend is compiled in (platforms other than Linux, and Linux builds
/// with the `Inotify` trait off), and says so once, as a ``WatcherFallback`` for the path `*`.
struct PollingBackend: FileEventBackend {
  var name: String { "polling" }

  /// Why this build polls, for the fallback message.
  static var reason: String {
    #if os(Linux)
      "inotify is compiled out of this build (the Inotify package trait is off)"
    #else
      "this platform has no file-event backend in Strata (inotify is Linux-only)"
    #endif
  }

  /// No event descriptor: every target is polled.
  func open() throws(Errno) -> Int32? { nil }
  /// Never called (there is no descriptor); throws `ENOSYS`.
  func addWatch(_ fd: Int32, directory: String) throws(Errno) -> Int32 { throw Errno(ENOSYS) }
  func removeWatch(_ fd: Int32, watch: Int32) {}
  func readEvents(_ fd: Int32) throws(Errno) -> [FileEvent] { [] }
}

/// The polled targets of one watcher and their settle check: each target's stat signature is compared
/// every `interval`; a change is reported once a second check, a settle interval later (at most
/// 100 ms), finds the same signature, so that a file caught between a writer's truncation and its write
/// (`O_TRUNC` then `write`) is never loaded half-written.
struct StatPoller: Sendable {
  /// Polled targets with their last signature.
  var polled: [String: [StatSignature?]] = [:]
  /// Polled targets whose signature changed at the last check, with the new signature.
  var settling: [String: [StatSignature?]] = [:]
  /// When the next check is due, or `nil` when nothing is polled.
  var nextPoll: UInt64?
  /// How often polled targets are checked, in nanoseconds.
  let interval: UInt64
  /// How long after a change the signature is checked again before the change is reported.
  var settleInterval: UInt64 { min(interval, 100_000_000) }

  init(interval: UInt64) { self.interval = interval }

  /// Polls `target` from now on (its signature now is the one changes are measured from).
  mutating func poll(_ target: String) {
    if polled[target] == nil { polled[target] = StatSignature.of(target) }
  }

  /// Polls exactly `targets`: others are dropped, new ones start from their signature now.
  mutating func pollOnly(_ targets: [String]) {
    let wanted = Set(targets)
    polled = polled.filter { wanted.contains($0.key) }
    for target in targets { poll(target) }
  }

  /// Stops polling `target`.
  mutating func stopPolling(_ target: String) { polled[target] = nil }

  /// Drops what no longer applies and sets the next check if something is polled.
  mutating func schedule(now: UInt64) {
    settling = settling.filter { polled[$0.key] != nil }
    if polled.isEmpty {
      nextPoll = nil
    } else if nextPoll == nil {
      nextPoll = now + interval
    }
  }

  /// Checks every polled target if a check is due.
  /// - Returns: the targets whose change was found again at this check (settled), or `nil` when no
  ///   check was due.
  mutating func check(now: UInt64) -> Set<String>? {
    guard let nextPoll, nextPoll <= now else { return nil }
    var changed: Set<String> = []
    for (target, signature) in polled {
      let current = StatSignature.of(target)
      if current == signature {
        settling[target] = nil
      } else if settling[target] == current {
        // The same change at two checks in a row: the writer is done with it.
        settling[target] = nil
        polled[target] = current
        changed.insert(target)
      } else {
        settling[target] = current
      }
    }
    self.nextPoll = now + (settling.isEmpty ? interval : settleInterval)
    return changed
  }
}

/// The stat fields that change when a file is rewritten in any way (WATCHING.md: mtime alone misses
/// same-size edits, coarse timestamps and `cp -p`).
struct StatSignature: Hashable, Sendable {
  var device: UInt64
  var inode: UInt64
  var size: Int64
  var modified: Int64
  var changed: Int64

  init?(_ path: String) {
    var info = stat()
    guard stat(path, &info) == 0 else { return nil }
    device = UInt64(info.st_dev)
    inode = UInt64(info.st_ino)
    size = Int64(info.st_size)
    modified = info.modificationTime.nanoseconds
    changed = info.statusChangeTime.nanoseconds
  }

  /// The signature of a path: the file's, or for a directory, every entry's (sorted by name).
  static func of(_ path: String) -> [StatSignature?] {
    guard FileSystem.isDirectory(path) else { return [StatSignature(path)] }
    let names = ((try? FileSystem.contents(ofDirectory: path, reportedAs: path)) ?? nil)?.sorted() ?? []
    return [StatSignature(path)] + names.map { StatSignature(joinPath(path, $0)) }
  }
}
