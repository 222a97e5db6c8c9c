import GRPCCore
import GRPCNIOTransportHTTP2Posix
import GRPCProtobuf

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// etcd's gRPC API (``EtcdTransport/grpc``): reads of the prefix (`KV.Range`) and authentication
/// (`Auth.Authenticate`), over HTTP/2 with a connection of its own for each read, to the same members
/// (in the same order, with the same failover) as the gateway's requests.
extension EtcdConnection {
  /// The largest answer taken: a range of every key below a prefix (the gateway's limit too).
  static let maxAnswerBytes = 64 << 20

  /// Every key that starts with `prefix`, in key order, and the header of the answer, through
  /// `KV.Range` at the current member (or the next ones when it fails).
  func rangeOverGRPC(prefix: [UInt8]) async throws -> (header: Header, entries: [Entry]) {
    var request = Etcdserverpb_RangeRequest()
    request.key = Data(prefix)
    request.rangeEnd = Data(EtcdWire.prefixRangeEnd(prefix))
    return try await overEndpoints { endpoint in
      try await overGRPC(endpoint, timeout: requestTimeout) { client, metadata, options in
        let answer = try await Etcdserverpb_KV.Client(wrapping: client).range(
          request, metadata: metadata, options: options)
        let header = Header(revision: Int(answer.header.revision), cluster: answer.header.clusterID)
        let entries = answer.kvs.map {
          Entry(key: Array($0.key), value: Array($0.value), modRevision: Int($0.modRevision))
        }
        return (header, entries)
      }
    }.value
  }

  /// Asks the member at `endpoint`, through `KV.Range`, how many keys start with `prefix` (a small
  /// linearizable read, which needs the cluster's leader): throws when it does not answer within
  /// `timeout`. With `leaderKnown`, a serializable read with etcd's "require leader" (see
  /// ``check(prefix:at:timeout:leaderKnown:)``).
  func checkOverGRPC(
    prefix: [UInt8], at endpoint: String, timeout: Duration, leaderKnown: Bool = false
  ) async throws {
    try await withGRPCClient(at: endpoint, timeout: timeout) { client in
      try await checkOverGRPC(prefix: prefix, over: client, timeout: timeout, leaderKnown: leaderKnown)
    }
  }

  /// ``checkOverGRPC(prefix:at:timeout:leaderKnown:)`` over a client already connected (a watch's: its
  /// check opens no connection of its own).
  func checkOverGRPC(
    prefix: [UInt8], over client: GRPCClient<HTTP2ClientTransport.Posix>, timeout: Duration,
    leaderKnown: Bool = false
  ) async throws {
    var request = Etcdserverpb_RangeRequest()
    request.key = Data(prefix)
    request.rangeEnd = Data(EtcdWire.prefixRangeEnd(prefix))
    request.countOnly = true
    request.serializable = leaderKnown
    try await authenticated(client, timeout: timeout) { client, metadata, options in
      var metadata = metadata
      if leaderKnown { metadata.addString("true", forKey: "hasleader") }
      _ = try await Etcdserverpb_KV.Client(wrapping: client).range(
        request, metadata: metadata, options: options)
    }
  }

  /// Runs `call` with a gRPC client connected to the member at `endpoint`, the user's token in its
  /// metadata (`token`) when there is a user, each call given `timeout` (`nil`: none): a token etcd
  /// no longer takes (it expired, or the member restarted) is replaced and the call made again, once.
  /// Throws a ``Failure`` (whether another member may answer is as for the gateway's status codes).
  func overGRPC<Value: Sendable>(
    _ endpoint: String, timeout: Duration?,
    _ call: (GRPCClient<HTTP2ClientTransport.Posix>, Metadata, CallOptions) async throws -> Value
  ) async throws -> Value {
    try await withGRPCClient(at: endpoint, timeout: timeout) { client in
      try await authenticated(client, timeout: timeout, call)
    }
  }

  /// Runs `body` with a gRPC client connected to the member at `endpoint` (one connection, closed
  /// when `body` returns). A gRPC error is thrown as a ``Failure`` (`timeout`: the calls' own, which a
  /// "deadline exceeded" names).
  func withGRPCClient<Value: Sendable>(
    at endpoint: String, timeout: Duration?,
    _ body: (GRPCClient<HTTP2ClientTransport.Posix>) async throws -> Value
  ) async throws -> Value {
    let transport = try grpcTransport(endpoint)
    do {
      return try await withUncancelledConnections(transport, body)
    } catch let error as RPCError {
      throw failure(error, timeout: timeout)
    }
  }

  /// Runs `call` over `client` with the user's token in its metadata (`token`) when there is a user,
  /// given `timeout` (`nil`: none): a token etcd no longer takes (it expired, or the member
  /// restarted) is replaced and the call made again, once. A gRPC error is thrown as a ``Failure``.
  func authenticated<Value: Sendable>(
    _ client: GRPCClient<HTTP2ClientTransport.Posix>, timeout: Duration?,
    _ call: (GRPCClient<HTTP2ClientTransport.Posix>, Metadata, CallOptions) async throws -> Value
  ) async throws -> Value {
    var options = CallOptions.defaults
    options.timeout = timeout
    options.waitForReady = false
    // The transport checks answers against the request limit too.
    options.maxRequestMessageBytes = Self.maxAnswerBytes
    options.maxResponseMessageBytes = Self.maxAnswerBytes
    do {
      guard let authenticator else { return try await call(client, [:], options) }
      let token = try await authenticator.current {
        try await authenticateOverGRPC(authenticator.credentials, client: client, options: options)
      }
      do {
        return try await call(client, Self.metadata(token: token), options)
      } catch let error as RPCError where error.code == .unauthenticated {
        authenticator.invalidate(token)
        let fresh = try await authenticator.current {
          try await authenticateOverGRPC(authenticator.credentials, client: client, options: options)
        }
        return try await call(client, Self.metadata(token: fresh), options)
      }
    } catch let error as RPCError {
      throw failure(error, timeout: timeout)
    }
  }

  /// Runs `body` with a client whose connections outlive the calling task's cancellation until `body`
  /// has returned, then ends them at once.
  ///
  /// `withGRPCClient` runs the connections as a child task, so cancelling the caller cancels them and
  /// the call together; a call cancelled just as it waits for its connection (grpc-swift-nio-transport
  /// 2.9's channel queues it without looking at the cancellation) then waits for a connection that is
  /// never made, and the caller never returns. Here the connections run until `body` ends, so a
  /// cancelled call is answered (cancelled, or failed) by its connection either way. Once `body` has
  /// ended no call is left, and the connections are cancelled rather than shut down gracefully: a
  /// graceful shutdown waits out a reconnection's backoff (seconds, after a member went away), which
  /// would hold up the move to the next member.
  private func withUncancelledConnections<Value: Sendable>(
    _ transport: HTTP2ClientTransport.Posix,
    _ body: (GRPCClient<HTTP2ClientTransport.Posix>) async throws -> Value
  ) async throws -> Value {
    let client = GRPCClient(transport: transport)
    let connections = Task { try? await client.runConnections() }
    let result: Result<Value, any Error>
    do {
      result = .success(try await body(client))
    } catch {
      result = .failure(error)
    }
    client.beginGracefulShutdown()
    connections.cancel()
    await connections.value
    return try result.get()
  }

  /// The metadata that authenticates a call with `token`.
  private static func metadata(token: String) -> Metadata {
    var metadata = Metadata()
    metadata.addString(token, forKey: "token")
    return metadata
  }

  /// Asks the member `client` is connected to for a token for `credentials`' user.
  private func authenticateOverGRPC(
    _ credentials: EtcdCredentials, client: GRPCClient<HTTP2ClientTransport.Posix>, options: CallOptions
  ) async throws -> String {
    var request = Etcdserverpb_AuthenticateRequest()
    request.name = credentials.user
    request.password = credentials.password
    let answer: Etcdserverpb_AuthenticateResponse
    do {
      answer = try await Etcdserverpb_Auth.Client(wrapping: client).authenticate(request, options: options)
    } catch let error as RPCError {
      let refused = failure(error, timeout: options.timeout)
      throw Failure(
        description: "etcd did not authenticate \(credentials): \(refused.description)",
        triesAnotherMember: refused.triesAnotherMember)
    }
    guard !answer.token.isEmpty else {
      throw Failure(
        description: "etcd authenticated \(credentials) but sent no token", triesAnotherMember: true)
    }
    return answer.token
  }

  /// The failure a gRPC error tells: another member may answer when this one is unreachable, too
  /// slow (no answer within `timeout`), without a leader, or failed (the codes the gateway answers
  /// with a 5xx status).
  func failure(_ error: RPCError, timeout: Duration?) -> Failure {
    let retried: Set<RPCError.Code> = [.unavailable, .deadlineExceeded, .internalError, .unknown, .dataLoss]
    if error.code == .deadlineExceeded, let timeout {
      return Failure(description: "no answer within \(timeout)", triesAnotherMember: true)
    }
    var message = error.message
    if let cause = error.cause { message += " (\(Self.describe(cause)))" }
    return Failure(
      description: "gRPC \(error.code): \(message)\(advice(for: error.message))",
      triesAnotherMember: retried.contains(error.code))
  }

  /// The gRPC transport to the member at `endpoint` (`http://host:port`, or `https://` with the
  /// layer's TLS).
  private func grpcTransport(_ endpoint: String) throws(Failure) -> HTTP2ClientTransport.Posix {
    guard let address = EtcdGRPCAddress(endpoint) else {
      throw Failure(description: "\(endpoint) is not an http:// or https:// URL with a host")
    }
    let security: HTTP2ClientTransport.Posix.TransportSecurity
    if !address.isSecure {
      security = .plaintext
    } else if let tls {
      let files = try tls.currentFiles()
      security = .tls { configuration in
        if let ca = files.ca { configuration.trustRoots = .certificates([.bytes(ca, format: .pem)]) }
        if let certificate = files.certificate, let key = files.key {
          configuration.certificateChain = [.bytes(certificate, format: .pem)]
          configuration.privateKey = .bytes(key, format: .pem)
        }
      }
    } else {
      security = .tls
    }
    do {
      return try HTTP2ClientTransport.Posix(target: address.target, transportSecurity: security)
    } catch {
      throw Failure(
        description: "cannot connect to \(endpoint): \(Self.describe(error))", triesAnotherMember: true)
    }
  }
}

/// A member's client URL as gRPC reaches it: `http://127.0.0.1:2379`, `https://[::1]:2379`,
/// `https://etcd-0.example:2379` (the port defaults to etcd's 2379).
package struct EtcdGRPCAddress: Equatable {
  package var host: String
  package var port: Int
  package var isSecure: Bool

  package init(host: String, port: Int, isSecure: Bool) {
    self.host = host
    self.port = port
    self.isSecure = isSecure
  }

  /// The address of `url`, or `nil` when it is not `http(s)://host[:port][/]`.
  package init?(_ url: String) {
    let rest: Substring
    if url.hasPrefix("http://") {
      isSecure = false
      rest = url.dropFirst("http://".count)
    } else if url.hasPrefix("https://") {
      isSecure = true
      rest = url.dropFirst("https://".count)
    } else {
      return nil
    }
    let authority = rest.prefix { $0 != "/" }
    var portText: Substring?
    if authority.hasPrefix("[") {
      guard let close = authority.firstIndex(of: "]") else { return nil }
      host = String(authority[authority.index(after: authority.startIndex)..<close])
      let after = authority[authority.index(after: close)...]
      if !after.isEmpty {
        guard after.hasPrefix(":") else { return nil }
        portText = after.dropFirst()
      }
    } else if let colon = authority.lastIndex(of: ":") {
      host = String(authority[..<colon])
      portText = authority[authority.index(after: colon)...]
    } else {
      host = String(authority)
    }
    if let portText {
      guard let port = Int(portText), (1...65535).contains(port) else { return nil }
      self.port = port
    } else {
      port = 2379
    }
    guard !host.isEmpty else { return nil }
  }

  /// Whether the host is an IPv4 address (digits and dots).
  private var isIPv4: Bool { host.allSatisfy { $0.isNumber || $0 == "." } && host.contains(".") }

  /// The target gRPC resolves: the address itself, or the name through DNS.
  var target: any ResolvableTarget {
    if host.contains(":") { return .ipv6(address: host, port: port) }
    if isIPv4 { return .ipv4(address: host, port: port) }
    return .dns(host: host, port: port)
  }
}
