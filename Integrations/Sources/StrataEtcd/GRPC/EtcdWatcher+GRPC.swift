import GRPCCore
import GRPCNIOTransportHTTP2Posix
import SwiftProtobuf
import Synchronization

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// The watch through etcd's gRPC API (``EtcdTransport/grpc``): `Watch.Watch`, a stream each way on a
/// connection of its own, with the same handling of its messages as the gateway's (each is turned into
/// the gateway's shape and given to ``EtcdWatcher/handle(_:start:endpoint:)``), the same periodic check
/// and the same failover.
extension EtcdWatcher {
  /// Opens one watch on the first member of a round (without those in `skipping`) that creates it,
  /// and reads it until it ends or fails, or its member stops answering the checks.
  func followOverGRPC(skipping: Set<String>) async -> Outcome {
    let start = state.watchStart()
    var reasons: [String] = []
    for endpoint in connection.endpoints.round(skipping: skipping) {
      if Task.isCancelled { return .restart }
      let outcome = await watchOverGRPC(at: endpoint, start: start)
      guard case .notOpened(let reason) = outcome else { return outcome }
      connection.endpoints.failed(endpoint)
      reasons.append(reason)
    }
    return .notOpened(reasons: reasons.joined(separator: "; "))
  }

  /// Watches the prefix on the member at `endpoint` from `start` (`nil`: from now) until the watch
  /// ends; one that ended before the member created it was not opened (a member without a leader
  /// refuses it so).
  private func watchOverGRPC(at endpoint: String, start: Int?) async -> Outcome {
    var create = Etcdserverpb_WatchCreateRequest()
    create.key = Data(prefix)
    create.rangeEnd = Data(EtcdWire.prefixRangeEnd(prefix))
    if let start { create.startRevision = Int64(start) }
    create.progressNotify = true
    let request = Etcdserverpb_WatchRequest.with { $0.createRequest = create }
    let created = EtcdWatchCreated()
    let timeout = connection.requestTimeout
    // The watch's call has no deadline (it lasts as long as the watch), but its creation must come
    // within the request timeout: a frozen or partitioned member accepts the connection and then
    // says nothing, not even the HTTP/2 preface.
    let outcome = await withTaskGroup(of: Outcome?.self) { group in
      group.addTask {
        do {
          return try await connection.withGRPCClient(at: endpoint, timeout: nil) { client in
            try await watch(over: client, at: endpoint, request: request, start: start, created: created)
          }
        } catch {
          return .lost(endpoint: endpoint, reason: EtcdConnection.describe(error))
        }
      }
      group.addTask {
        do {
          try await Task.sleep(for: timeout)
        } catch {
          return nil
        }
        return created.value ? nil : .lost(endpoint: endpoint, reason: "no answer within \(timeout)")
      }
      // The watch's end, or the creation's deadline, ends both; the deadline gives `nil` once the
      // watch was created.
      defer { group.cancelAll() }
      while let next = await group.next() {
        if let outcome = next { return outcome }
      }
      return Outcome.restart
    }
    guard case .lost(let endpoint, let reason) = outcome, !created.value else { return outcome }
    return .notOpened(reasons: "\(endpoint): \(reason)")
  }

  /// Opens the watch over `client` (connected to the member at `endpoint`) and reads it until it ends;
  /// its periodic check goes over the same connection.
  private func watch(
    over client: GRPCClient<HTTP2ClientTransport.Posix>, at endpoint: String,
    request: Etcdserverpb_WatchRequest, start: Int?, created: EtcdWatchCreated
  ) async throws -> Outcome {
    try await connection.authenticated(client, timeout: nil) { client, metadata, options in
      var metadata = metadata
      // etcd's "require leader": a member that loses its leader ends the watch.
      metadata.addString("true", forKey: "hasleader")
      // The request stream stays open as long as the watch (etcd keeps a watch whose requests
      // ended, but a client that half-closes has nothing left to say).
      let (ended, end) = AsyncStream<Never>.makeStream()
      return try await Etcdserverpb_Watch.Client(wrapping: client).watch(
        metadata: metadata, options: options,
        requestProducer: { writer in
          try await writer.write(request)
          for await _ in ended {}
        },
        onResponse: { response in
          defer { end.finish() }
          return try await read(
            response.messages, start: start, endpoint: endpoint, created: created, client: client)
        })
    }
  }

  /// Reads a watch's messages until one ends the watch, while checking every `checkInterval` that
  /// its member still answers.
  private func read(
    _ messages: RPCAsyncSequence<Etcdserverpb_WatchResponse, any Error>, start: Int?, endpoint: String,
    created: EtcdWatchCreated, client: GRPCClient<HTTP2ClientTransport.Posix>
  ) async throws -> Outcome {
    try await withThrowingTaskGroup(of: Outcome?.self) { group in
      group.addTask {
        for try await message in messages {
          let wire = Self.wireMessage(message)
          if wire.result?.created == true {
            created.set()
            connection.endpoints.answered(endpoint)
          }
          if let outcome = try handle(wire, start: start, endpoint: endpoint) { return outcome }
        }
        return .lost(endpoint: endpoint, reason: "the server closed the watch")
      }
      group.addTask {
        await check(endpoint) {
          try await connection.checkOverGRPC(prefix: prefix, over: client, timeout: connection.requestTimeout)
        }
      }
      // The first to end (the watch, or a failed check) ends both; a cancelled one gives `nil`.
      defer { group.cancelAll() }
      while let next = try await group.next() {
        if let outcome = next { return outcome }
      }
      return .restart
    }
  }

  /// A message of the gRPC watch in the gateway's shape (keys and values in base64), which
  /// ``EtcdWatcher/handle(_:start:endpoint:)`` and the source's state take.
  static func wireMessage(_ message: Etcdserverpb_WatchResponse) -> EtcdWire.WatchMessage {
    let header = EtcdWire.Header(
      revision: .init(Int(message.header.revision)), cluster_id: .init(message.header.clusterID),
      member_id: .init(message.header.memberID),
      raft_term: .init(Int(truncatingIfNeeded: message.header.raftTerm)))
    let events = message.events.map { event in
      EtcdWire.Event(
        type: event.type == .delete ? "DELETE" : "PUT",
        kv: EtcdWire.KeyValue(
          key: Data(event.kv.key).base64EncodedString(), value: Data(event.kv.value).base64EncodedString(),
          mod_revision: .init(Int(event.kv.modRevision)), create_revision: .init(Int(event.kv.createRevision))
        ))
    }
    return EtcdWire.WatchMessage(
      result: .init(
        header: header, created: message.created, canceled: message.canceled,
        compact_revision: .init(Int(message.compactRevision)),
        cancel_reason: message.cancelReason.isEmpty ? nil : message.cancelReason, events: events),
      error: nil)
  }
}

/// Whether the member created the watch (the gRPC call's response handler sets it; the call's caller
/// reads it after the call ended).
private final class EtcdWatchCreated: Sendable {
  private let created = Mutex(false)
  var value: Bool { created.withLock { $0 } }
  func set() { created.withLock { $0 = true } }
}
