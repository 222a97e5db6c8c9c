import AsyncHTTPClient
import NIOCore
import Strata
import Synchronization

/// Follows etcd's watch of a prefix: applies its events to the source's keys and signals the store,
/// once after each (re)connection, once per batch of events, and once when the watch is lost. It
/// resumes from the revision after the keys'; when that revision was compacted away it starts again
/// from now, and the next fetch reads the whole prefix. While the watch is open, a small read every
/// `checkInterval` makes sure etcd still answers: a server that stopped answering without closing the
/// connection (a network partition, a frozen process) counts as lost.
struct EtcdWatcher: Sendable {
  let connection: EtcdConnection
  let prefix: [UInt8]
  let state: EtcdSourceState
  let retry: EtcdRetry
  let checkInterval: Duration
  /// The store's signal: never blocks.
  let signal: @Sendable (LayerChange) -> Void

  /// Watches until the task is cancelled, then returns promptly; reconnects with the retry policy's
  /// delays. Its requests and its check are this task's own or its children.
  func run() async {
    var failures = 0
    while !Task.isCancelled {
      let connected = Mutex(false)
      do {
        try await follow(onCreated: { connected.withLock { $0 = true } })
      } catch {}
      state.watchEnded()
      if Task.isCancelled { return }
      if connected.withLock({ $0 }) {
        failures = 0
        // The watch was lost (or cancelled by a compaction): the store's fetch says which.
        signal(.changed)
      } else {
        failures += 1
        try? await Task.sleep(for: retry.wait(afterFailures: failures))
      }
    }
  }

  /// Opens one watch and reads it until it ends or fails, or etcd stops answering the checks.
  private func follow(onCreated: @escaping @Sendable () -> Void) async throws {
    let start = state.watchStart()
    let body = try await connection.watch(prefix: prefix, startRevision: start)
    try await withThrowingTaskGroup(of: Void.self) { group in
      group.addTask { try await read(body, start: start, onCreated: onCreated) }
      group.addTask {
        while true {
          try await Task.sleep(for: checkInterval)
          try await connection.check(prefix: prefix)
        }
      }
      // The first to end (the watch, or a failed check) ends both.
      defer { group.cancelAll() }
      try await group.next()
    }
  }

  /// Reads a watch's messages, one JSON object a line.
  private func read(_ body: HTTPClientResponseBody, start: Int?, onCreated: () -> Void) async throws {
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
      state.compacted()
      return false
    }
    if result.canceled == true { return false }
    if result.created == true {
      guard state.watchCreated(start: start, current: result.header?.revision?.value ?? 0) else {
        onCreated()  // the server answered: start again at once, from now
        return false
      }
      onCreated()
      signal(.changed)
      return true
    }
    if let events = result.events, !events.isEmpty {
      try state.apply(events)
      signal(.changed)
    } else if let revision = result.header?.revision?.value {
      state.progressed(to: revision)
    }
    return true
  }
}
