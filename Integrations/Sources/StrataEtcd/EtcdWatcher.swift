import AsyncHTTPClient
import NIOCore
import Strata

/// Follows etcd's watch of a prefix: applies its events to the source's keys and signals the store,
/// once after each (re)connection and once per batch of events. It resumes from the revision after the
/// keys', on whichever member answers: when the member it watches fails (its connection drops, it
/// loses its leader, it stops answering the checks), the other members are asked at once, each within
/// the request timeout, and the watch moves to the first that answers; only when none does is the loss
/// reported (a `failed` event, within a request timeout of the loss even when the members hang) and
/// the retry policy's delays apply. Each attempt to open the watch waits at most the request timeout.
/// When the revision was compacted away it starts again from now, and the next fetch reads the whole
/// prefix. While the watch is open, a small linearizable read every `checkInterval` makes sure the
/// member still answers and has a leader: a server that stopped answering without closing the
/// connection (a network partition, a frozen process) counts as lost.
struct EtcdWatcher: Sendable {
  let connection: EtcdConnection
  let prefix: [UInt8]
  let state: EtcdSourceState
  let retry: EtcdRetry
  let checkInterval: Duration
  /// The store's signal: never blocks.
  let signal: @Sendable () -> Void

  /// How one watch ended.
  enum Outcome: Sendable {
    /// Start again at once (the revision was compacted away, or the server's data were reset).
    case restart
    /// The member at `endpoint` failed, for `reason`.
    case lost(endpoint: String, reason: String)
    /// The member at `endpoint` cancelled the watch because it no longer takes the user's token (it
    /// expired, or the member restarted): open it again there with a new one.
    case tokenRefused(endpoint: String, reason: String)
    /// No member accepted the watch: each one tried, and why.
    case notOpened(reasons: String)
  }

  /// Watches until the task is cancelled, then returns promptly; reconnects with the retry policy's
  /// delays. Its requests and its check are this task's own or its children.
  func run() async {
    var failures = 0
    // The member whose watch was just lost, and why: the next round tries the others first.
    var lost: (endpoint: String, reason: String)?
    // Whether the last watch was cancelled for its token: a second in a row counts as lost.
    var tokenRefused = false
    while !Task.isCancelled {
      var outcome: Outcome
      if let loss = lost {
        // The watch was just lost: the other members are asked at once, each within the request
        // timeout, so that a partition (members that hang rather than fail) is reported within a
        // request timeout of the loss, not after one timeout for each member tried in turn.
        switch await survey(excluding: loss.endpoint) {
        case .answered(let endpoint):
          connection.endpoints.answered(endpoint)
          outcome = await follow(skipping: [loss.endpoint])
        case .silent(let reasons):
          outcome = .notOpened(reasons: reasons)
        }
      } else {
        outcome = await follow(skipping: [])
      }
      state.watchEnded()
      if Task.isCancelled { return }
      if case .tokenRefused(let endpoint, let reason) = outcome {
        connection.authenticator?.invalidate()
        if !tokenRefused {
          tokenRefused = true
          continue
        }
        outcome = .lost(endpoint: endpoint, reason: reason)
      }
      tokenRefused = false
      switch outcome {
      case .restart:
        failures = 0
        lost = nil
      case .lost(let endpoint, let reason), .tokenRefused(let endpoint, let reason):
        failures = 0
        connection.endpoints.failed(endpoint)
        lost = (endpoint, "\(endpoint): \(reason)")
      case .notOpened(let reasons):
        if let loss = lost {
          // The watch was lost and no other member took it: the values may be stale from now on.
          let all = [loss.reason, reasons].filter { !$0.isEmpty }.joined(separator: "; ")
          state.watchLost(state.unreadable(all))
          signal()
          lost = nil
        }
        failures += 1
        try? await Task.sleep(for: retry.wait(afterFailures: failures))
      }
    }
  }

  /// What the other members said when the watch was lost.
  enum Survey: Sendable {
    /// The member at `endpoint` answered first.
    case answered(String)
    /// None answered: each one asked, and why (no words when there was none to ask).
    case silent(String)
  }

  /// Asks every member but `lost`, all at once, whether it answers within the request timeout and
  /// knows a leader (what creating a watch there needs: a serializable read with etcd's "require
  /// leader", which does not wait for the leader); returns as soon as one does (the others' requests
  /// are cancelled), or, when none does, each member and why.
  func survey(excluding lost: String) async -> Survey {
    let others = connection.endpoints.round(skipping: [lost])
    return await withTaskGroup(of: (endpoint: String, reason: String?).self) { group in
      for endpoint in others {
        group.addTask {
          do {
            try await connection.check(
              prefix: prefix, at: endpoint, timeout: connection.requestTimeout, leaderKnown: true)
            return (endpoint, nil)
          } catch {
            return (endpoint, EtcdConnection.describe(error))
          }
        }
      }
      defer { group.cancelAll() }
      var reasons: [String: String] = [:]
      for await (endpoint, reason) in group {
        guard let reason else { return .answered(endpoint) }
        reasons[endpoint] = reason
      }
      return .silent(
        others.compactMap { endpoint in reasons[endpoint].map { "\(endpoint): \($0)" } }
          .joined(separator: "; "))
    }
  }

  /// Opens one watch (on a member not in `skipping`) and reads it until it ends or fails, or its member
  /// stops answering the checks.
  private func follow(skipping: Set<String>) async -> Outcome {
    if connection.transport == .grpc { return await followOverGRPC(skipping: skipping) }
    let start = state.watchStart()
    let body: HTTPClientResponseBody
    let endpoint: String
    do {
      (body, endpoint) = try await connection.watch(prefix: prefix, startRevision: start, skipping: skipping)
    } catch {
      return .notOpened(reasons: "\(error)")
    }
    return await withTaskGroup(of: Outcome?.self) { group in
      group.addTask { await read(body, start: start, endpoint: endpoint) }
      group.addTask { await check(endpoint) }
      // The first to end (the watch, or a failed check) ends both; a cancelled one gives `nil`.
      defer { group.cancelAll() }
      let first: Outcome?? = await group.next()
      return (first ?? nil) ?? .restart
    }
  }

  /// Checks every `checkInterval` that the member at `endpoint` answers, within the request timeout,
  /// a linearizable read (`probe`, when given: over the watch's own connection); returns when one
  /// fails (`nil` when cancelled).
  func check(_ endpoint: String, probe: (@Sendable () async throws -> Void)? = nil) async -> Outcome? {
    while true {
      do {
        try await Task.sleep(for: checkInterval)
      } catch {
        return nil
      }
      do {
        if let probe {
          try await probe()
        } else {
          try await connection.check(prefix: prefix, at: endpoint, timeout: connection.requestTimeout)
        }
        state.contact(serverRevision: 0)
      } catch {
        if Task.isCancelled { return nil }
        return .lost(
          endpoint: endpoint, reason: "a check of the watch failed: \(EtcdConnection.describe(error))")
      }
    }
  }

  /// Reads a watch until it ends; a watch that ended before the member created it was not opened
  /// (a member without a leader refuses it so), and the member is left for the next.
  private func read(_ body: HTTPClientResponseBody, start: Int?, endpoint: String) async -> Outcome {
    var created = false
    let outcome: Outcome
    do {
      outcome = try await messages(body, start: start, endpoint: endpoint, created: &created)
    } catch {
      outcome = .lost(endpoint: endpoint, reason: EtcdConnection.describe(error))
    }
    guard case .lost(let endpoint, let reason) = outcome, !created else { return outcome }
    connection.endpoints.failed(endpoint)
    return .notOpened(reasons: "\(endpoint): \(reason)")
  }

  /// Reads a watch's messages, one JSON object a line (the last may end without one: the error that
  /// ends a watch), until one ends the watch; `created` tells whether the member created it. A message
  /// longer than ``maxMessageBytes`` fails the watch.
  private func messages(
    _ body: HTTPClientResponseBody, start: Int?, endpoint: String, created: inout Bool
  ) async throws -> Outcome {
    var pending: [UInt8] = []
    for try await buffer in body {
      pending += buffer.readableBytesView
      while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
        let line = Array(pending[..<newline])
        pending.removeSubrange(...newline)
        if let outcome = try take(line, start: start, endpoint: endpoint, created: &created) {
          return outcome
        }
      }
      guard pending.count <= Self.maxMessageBytes else {
        throw EtcdConnection.Failure(
          description: "a message of the watch is longer than \(Self.maxMessageBytes) bytes",
          triesAnotherMember: true)
      }
    }
    if let outcome = try take(pending, start: start, endpoint: endpoint, created: &created) { return outcome }
    return .lost(endpoint: endpoint, reason: "the server closed the watch")
  }

  /// The longest message of a watch: a batch of events, each value up to etcd's own limit (1.5 MiB by
  /// default, `--max-request-bytes`).
  static let maxMessageBytes = 64 << 20

  /// Decodes and handles one line of a watch (nothing when it is blank).
  private func take(_ line: [UInt8], start: Int?, endpoint: String, created: inout Bool) throws -> Outcome? {
    guard line.contains(where: { $0 != UInt8(ascii: " ") && $0 != UInt8(ascii: "\r") }) else { return nil }
    let message = try connection.decode(EtcdWire.WatchMessage.self, from: line)
    created = created || message.result?.created == true
    return try handle(message, start: start, endpoint: endpoint)
  }

  /// Handles one message of a watch that started from `start` (`nil`: from now) on the member at
  /// `endpoint`; how the watch ended, or `nil` while it goes on.
  func handle(_ message: EtcdWire.WatchMessage, start: Int?, endpoint: String) throws -> Outcome? {
    guard let result = message.result else {
      return .lost(endpoint: endpoint, reason: message.error?.message ?? "the watch failed")
    }
    if result.created != true && result.canceled != true {
      state.contact(serverRevision: result.header?.revision?.value ?? 0)
    }
    if let compacted = result.compact_revision?.value, compacted > 0 {
      state.compacted()
      return .restart
    }
    if result.canceled == true {
      let reason = result.cancel_reason.map { ": \($0)" } ?? ""
      if connection.authenticator != nil, reason.contains("invalid auth token") {
        return .tokenRefused(endpoint: endpoint, reason: "the server cancelled the watch\(reason)")
      }
      return .lost(endpoint: endpoint, reason: "the server cancelled the watch\(reason)")
    }
    if result.created == true {
      guard state.watchCreated(start: start, header: .init(result.header), endpoint: endpoint) else {
        return .restart  // the server's data were reset: start again at once, from now
      }
      signal()
      return nil
    }
    if let events = result.events, !events.isEmpty {
      if !state.suspectsEmptying(events) { try state.apply(events) }
      signal()
    } else if let revision = result.header?.revision?.value {
      state.progressed(to: revision)
    }
    return nil
  }
}
