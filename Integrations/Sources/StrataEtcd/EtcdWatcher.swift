import FoundationEssentials
import Strata

/// Follows etcd's watch of a prefix and turns what it hears into change signals: one after each
/// (re)connection, one per batch of events, one when the watch is lost. It resumes from the last
/// revision it saw; when that revision was compacted away it starts again from now, and the signal
/// makes the store read the whole prefix again.
struct EtcdWatcher: Sendable {
  let connection: EtcdConnection
  let prefix: [UInt8]
  let state: EtcdSourceState
  let retry: EtcdRetry
  let signal: AsyncStream<LayerChange>.Continuation

  /// Watches until the task is cancelled, reconnecting with the retry policy's delays.
  func run() async {
    var failures = 0
    while !Task.isCancelled {
      var connected = false
      do {
        try await follow(onCreated: {
          connected = true
          failures = 0
        })
      } catch {}
      if Task.isCancelled { return }
      if connected {
        // The watch was lost (or cancelled by a compaction): the store's fetch says which.
        signal.yield(.changed)
      } else {
        failures += 1
        try? await Task.sleep(for: retry.delay(afterFailures: failures))
      }
    }
  }

  /// Opens one watch and reads it until it ends or fails.
  private func follow(onCreated: () -> Void) async throws {
    let seen = state.watchRevision
    let start = seen > 0 ? seen + 1 : nil
    let body = try await connection.watch(prefix: prefix, startRevision: start)
    defer { state.updateWatchStatus { $0.isConnected = false } }
    var pending: [UInt8] = []
    for try await buffer in body {
      pending += buffer.readableBytesView
      while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
        let line = Array(pending[..<newline])
        pending.removeSubrange(...newline)
        guard !line.isEmpty else { continue }
        let message = try connection.decode(EtcdWire.WatchMessage.self, from: line)
        guard try handle(message, start: start, onCreated: onCreated) else { return }
      }
    }
  }

  /// Handles one message of a watch that started from `start` (`nil`: from now); `false` when the
  /// watch is over.
  private func handle(_ message: EtcdWire.WatchMessage, start: Int?, onCreated: () -> Void) throws -> Bool {
    guard let result = message.result else {
      throw EtcdConnection.Failure(description: message.error?.message ?? "the watch failed")
    }
    if let compacted = result.compact_revision?.value, compacted > 0 {
      // The revision to resume from is gone: start again from now; the signal makes the store read
      // the prefix again.
      state.watchRevision = 0
      state.updateWatchStatus { $0.compactions += 1 }
      return false
    }
    if result.canceled == true { return false }
    if result.created == true {
      if start == nil, let revision = result.header?.revision?.value { state.sawRevision(revision) }
      state.updateWatchStatus {
        $0.isConnected = true
        $0.connections += 1
        $0.startRevisions.append(start)
      }
      onCreated()
      signal.yield(.changed)
      return true
    }
    if let events = result.events, !events.isEmpty {
      for event in events { state.sawRevision(event.kv?.mod_revision?.value ?? 0) }
      signal.yield(.changed)
    } else if let revision = result.header?.revision?.value {
      state.sawRevision(revision)  // a progress notice: nothing changed below the prefix up to here
    }
    return true
  }
}
