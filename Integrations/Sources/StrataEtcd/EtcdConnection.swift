package import AsyncHTTPClient
import NIOCore
import NIOHTTP1

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif
#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// etcd's HTTP/JSON gateway, through an `HTTPClient`: range reads, watches, and (for tests and tools)
/// puts, deletes and compactions; with ``EtcdTransport/grpc``, range reads and authentication go
/// through etcd's gRPC API instead (`EtcdConnection+GRPC.swift`).
package struct EtcdConnection: Sendable {
  /// A request that failed: the server could not be reached, or answered with an error.
  package struct Failure: Error, CustomStringConvertible {
    /// What went wrong, as a phrase.
    package var description: String
    /// Whether another member may answer (the member was unreachable, too slow, without a leader, or
    /// answered with a server error); not for an answer every member would give (a bad request).
    var triesAnotherMember = false
  }

  /// One key read: its bytes, its value's bytes, and the revision that last changed it.
  package struct Entry: Sendable {
    package var key: [UInt8]
    package var value: [UInt8]
    package var modRevision: Int
  }

  /// Which store answered: its revision, and the cluster (0: not said).
  package struct Header: Sendable, Hashable {
    package var revision: Int
    package var cluster: UInt64

    package init(revision: Int, cluster: UInt64) {
      self.revision = revision
      self.cluster = cluster
    }

    init(_ header: EtcdWire.Header?) {
      revision = header?.revision?.value ?? 0
      cluster = header?.cluster_id?.value ?? 0
    }
  }

  let client: HTTPClient
  /// The cluster's members; requests go to the current one and move on when it fails.
  let endpoints: EtcdEndpoints
  let requestTimeout: Duration
  /// The user requests authenticate as, with its token (`nil`: none).
  let authenticator: EtcdAuthenticator?
  /// TLS for `https://` endpoints (`nil`: the client's own configuration).
  let tls: EtcdTLSConfiguration?
  /// What range reads go through.
  let transport: EtcdTransport

  /// A connection to the members at `endpoints` (`http://127.0.0.1:2379`), as `credentials`' user,
  /// over `tls` for `https://` endpoints.
  package init(
    client: HTTPClient, endpoints: [String], requestTimeout: Duration, credentials: EtcdCredentials? = nil,
    tls: EtcdTLS? = nil, transport: EtcdTransport = .gateway
  ) {
    self.client = client
    self.endpoints = EtcdEndpoints(endpoints)
    self.requestTimeout = requestTimeout
    authenticator = credentials.map(EtcdAuthenticator.init)
    self.tls = tls.map(EtcdTLSConfiguration.init)
    self.transport = transport
  }

  /// A connection to one member at `endpoint`.
  package init(
    client: HTTPClient, endpoint: String, requestTimeout: Duration, credentials: EtcdCredentials? = nil,
    tls: EtcdTLS? = nil, transport: EtcdTransport = .gateway
  ) {
    self.init(
      client: client, endpoints: [endpoint], requestTimeout: requestTimeout, credentials: credentials,
      tls: tls, transport: transport)
  }

  /// How many tokens the connection has asked for (0: none, or no credentials).
  package var authentications: Int { authenticator?.count ?? 0 }

  /// The endpoint requests go to now.
  package var endpoint: String { endpoints.endpoint }

  /// Every key that starts with `prefix`, in key order, and the header of the answer.
  package func range(prefix: [UInt8]) async throws -> (header: Header, entries: [Entry]) {
    if transport == .grpc { return try await rangeOverGRPC(prefix: prefix) }
    let body = EtcdWire.RangeRequest(
      key: EtcdWire.base64(prefix), range_end: EtcdWire.base64(EtcdWire.prefixRangeEnd(prefix)))
    return try EtcdRangeReader.read(try await post("/v3/kv/range", body))
  }

  /// Asks the member at `endpoint` how many keys start with `prefix` (a small linearizable read, which
  /// needs the cluster's leader): throws when it does not answer within `timeout`. With
  /// `leaderKnown`, a serializable read with etcd's "require leader" instead: the member answers
  /// from its own store when it knows a leader, as a watch it would create needs, and refuses at
  /// once when it knows none ("etcdserver: no leader").
  func check(prefix: [UInt8], at endpoint: String, timeout: Duration, leaderKnown: Bool = false) async throws
  {
    if transport == .grpc {
      return try await checkOverGRPC(prefix: prefix, at: endpoint, timeout: timeout, leaderKnown: leaderKnown)
    }
    let body = EtcdWire.CountRequest(
      key: EtcdWire.base64(prefix), range_end: EtcdWire.base64(EtcdWire.prefixRangeEnd(prefix)),
      count_only: true, serializable: leaderKnown)
    let response = try await send(
      "/v3/kv/range", body, to: endpoint, timeout: timeout,
      headers: leaderKnown ? [("Grpc-Metadata-hasleader", "true")] : [])
    _ = try await answer(response)
  }

  /// Opens a watch of every key that starts with `prefix`, from `startRevision` (`nil`: from now), on
  /// the first member of a round (without those in `skipping`) that accepts it; returns its stream of
  /// messages, one JSON object a line, and the member's endpoint. The watch requires a leader: a
  /// member that loses its leader ends it ("etcdserver: no leader").
  func watch(prefix: [UInt8], startRevision: Int?, skipping: Set<String> = []) async throws -> (
    body: HTTPClientResponseBody, endpoint: String
  ) {
    let body = EtcdWire.WatchRequest(
      create_request: .init(
        key: EtcdWire.base64(prefix), range_end: EtcdWire.base64(EtcdWire.prefixRangeEnd(prefix)),
        start_revision: startRevision.map(String.init), progress_notify: true))
    let (stream, endpoint) = try await overEndpoints(skipping: skipping) { endpoint in
      let response = try await send(
        "/v3/watch", body, to: endpoint, headers: [("Grpc-Metadata-hasleader", "true")])
      guard response.status == .ok else { throw try await failure(response) }
      return response.body
    }
    return (stream, endpoint)
  }

  /// Sets `key` to `value`; returns the revision of the change.
  @discardableResult
  package func put(_ key: String, _ value: [UInt8]) async throws -> Int {
    let body = EtcdWire.PutRequest(key: EtcdWire.base64(key), value: EtcdWire.base64(value))
    let response = try decode(EtcdWire.RangeResponse.self, from: try await post("/v3/kv/put", body))
    return response.header?.revision?.value ?? 0
  }

  /// Sets `key` to the UTF-8 bytes of `value`; returns the revision of the change.
  @discardableResult
  package func put(_ key: String, _ value: String) async throws -> Int {
    try await put(key, Array(value.utf8))
  }

  /// Deletes `key`; returns the revision of the change.
  @discardableResult
  package func delete(_ key: String) async throws -> Int {
    let body = EtcdWire.RangeRequest(key: EtcdWire.base64(key), range_end: "")
    let response = try decode(EtcdWire.RangeResponse.self, from: try await post("/v3/kv/deleterange", body))
    return response.header?.revision?.value ?? 0
  }

  /// Deletes every key that starts with `prefix`, at once; returns the revision of the change.
  @discardableResult
  package func delete(below prefix: String) async throws -> Int {
    let bytes = Array(prefix.utf8)
    let body = EtcdWire.RangeRequest(
      key: EtcdWire.base64(bytes), range_end: EtcdWire.base64(EtcdWire.prefixRangeEnd(bytes)))
    let response = try decode(EtcdWire.RangeResponse.self, from: try await post("/v3/kv/deleterange", body))
    return response.header?.revision?.value ?? 0
  }

  /// Compacts the store's history up to `revision`: watches from before it are cancelled.
  package func compact(to revision: Int) async throws {
    _ = try await post(
      "/v3/kv/compaction", EtcdWire.CompactionRequest(revision: String(revision), physical: true))
  }

  /// Posts a JSON body to the current member, or the next ones when it fails, and returns the
  /// answer's bytes; an answer other than 200 is a failure.
  private func post(_ path: String, _ body: some Encodable) async throws -> [UInt8] {
    try await overEndpoints { endpoint in try await answer(try await send(path, body, to: endpoint)) }.value
  }

  /// Tries `attempt` on each member of a round (without those in `skipping`), the current one first,
  /// until one succeeds, which becomes the current one; moves past a member that fails in a way
  /// another may not. Throws a failure that names each member tried and why it failed (no words when
  /// the round was empty: every member was skipped).
  func overEndpoints<Value>(
    skipping: Set<String> = [], _ attempt: (String) async throws -> Value
  ) async throws -> (value: Value, endpoint: String) {
    var reasons: [String] = []
    for endpoint in endpoints.round(skipping: skipping) {
      do {
        let value = try await attempt(endpoint)
        endpoints.answered(endpoint)
        return (value, endpoint)
      } catch let failure as Failure where !failure.triesAnotherMember {
        throw Failure(description: "\(endpoint): \(failure.description)")
      } catch {
        if Task.isCancelled { throw error }
        endpoints.failed(endpoint)
        reasons.append("\(endpoint): \(Self.describe(error))")
      }
      if Task.isCancelled { break }
    }
    throw Failure(
      description: reasons.joined(separator: "; "),
      triesAnotherMember: true)
  }

  /// The bytes of a 200 answer; any other is a failure.
  private func answer(_ response: HTTPClientResponse) async throws -> [UInt8] {
    guard response.status == .ok else { throw try await failure(response) }
    var buffer = try await response.body.collect(upTo: 64 << 20)
    return buffer.readBytes(length: buffer.readableBytes) ?? []
  }

  /// Sends a POST request with a JSON body to `endpoint`, with the user's token when there is one;
  /// `timeout` (default: the request timeout) covers the answer's head. When etcd no longer takes
  /// the token (`401`: it expired, or the member restarted), asks for a new one and sends it again,
  /// once.
  private func send(
    _ path: String, _ body: some Encodable, to endpoint: String, timeout: Duration? = nil,
    headers: [(String, String)] = []
  ) async throws -> HTTPClientResponse {
    let bytes = try JSONEncoder().encode(body)
    guard let authenticator else {
      return try await execute(path, bytes, to: endpoint, timeout: timeout, headers: headers)
    }
    let token = try await authenticator.current {
      try await authenticate(authenticator.credentials, at: endpoint, timeout: timeout)
    }
    let response = try await execute(
      path, bytes, to: endpoint, timeout: timeout, headers: headers + [("Authorization", token)])
    guard response.status == .unauthorized else { return response }
    _ = try? await response.body.collect(upTo: 1 << 20)
    authenticator.invalidate(token)
    let fresh = try await authenticator.current {
      try await authenticate(authenticator.credentials, at: endpoint, timeout: timeout)
    }
    return try await execute(
      path, bytes, to: endpoint, timeout: timeout, headers: headers + [("Authorization", fresh)])
  }

  /// Asks the member at `endpoint` for a token for `credentials`' user.
  private func authenticate(
    _ credentials: EtcdCredentials, at endpoint: String, timeout: Duration?
  ) async throws -> String {
    let body = EtcdWire.AuthenticateRequest(name: credentials.user, password: credentials.password)
    let response = try await execute(
      "/v3/auth/authenticate", try JSONEncoder().encode(body), to: endpoint, timeout: timeout, headers: [])
    guard response.status == .ok else {
      let refused = try await failure(response)
      throw Failure(
        description: "etcd did not authenticate \(credentials): \(refused.description)",
        triesAnotherMember: refused.triesAnotherMember)
    }
    var buffer = try await response.body.collect(upTo: 1 << 20)
    let answer = try decode(
      EtcdWire.AuthenticateResponse.self, from: buffer.readBytes(length: buffer.readableBytes) ?? [])
    guard let token = answer.token, !token.isEmpty else {
      throw Failure(
        description: "etcd authenticated \(credentials) but sent no token", triesAnotherMember: true)
    }
    return token
  }

  /// Sends one POST request of `body`'s bytes to `endpoint`.
  private func execute(
    _ path: String, _ body: Data, to endpoint: String, timeout: Duration?, headers: [(String, String)]
  ) async throws -> HTTPClientResponse {
    var request = HTTPClientRequest(url: endpoint + path)
    request.method = .POST
    request.headers.add(name: "Content-Type", value: "application/json")
    request.headers.add(contentsOf: headers)
    if let tls, endpoint.hasPrefix("https:") { request.tlsConfiguration = try tls.current() }
    request.body = .bytes(ByteBuffer(bytes: body))
    do {
      return try await client.execute(request, timeout: Self.timeAmount(timeout ?? requestTimeout))
    } catch let error as HTTPClientError {
      let reason = error == .deadlineExceeded ? "no answer within \(timeout ?? requestTimeout)" : "\(error)"
      throw Failure(description: reason, triesAnotherMember: true)
    }
  }

  /// The failure an error answer tells: one another member may not give when the member is
  /// unavailable (no leader, a timed-out request: etcd's 503) or fails (another 5xx).
  private func failure(_ response: HTTPClientResponse) async throws -> Failure {
    var buffer = try await response.body.collect(upTo: 1 << 20)
    let bytes = buffer.readBytes(length: buffer.readableBytes) ?? []
    let body = try? JSONDecoder().decode(EtcdWire.ErrorBody.self, from: Data(bytes))
    let message = body?.message ?? body?.error ?? String(decoding: bytes.prefix(200), as: UTF8.self)
    return Failure(
      description: "HTTP \(response.status.code): \(message)\(advice(for: message))",
      triesAnotherMember: response.status.code >= 500)
  }

  /// What to do about an error etcd gave, when there is something to say.
  func advice(for message: String) -> String {
    if message.contains("user name is empty") && authenticator == nil {
      return " (etcd has authentication on: give the layer EtcdCredentials)"
    }
    if message.contains("CommonName of client sending a request against gateway") {
      return
        " (etcd refuses every request of its HTTP/JSON gateway when both authentication and"
        + " --client-cert-auth are on; give this client a listener without --client-cert-auth)"
    }
    if message.contains("permission denied") {
      let user = authenticator.map { "\($0.credentials)" } ?? "the user"
      return
        " (\(user) needs read permission on the prefix: etcdctl role grant-permission ROLE --prefix=true read PREFIX)"
    }
    return ""
  }

  /// A short description of a failed request.
  static func describe(_ error: any Error) -> String {
    if let error = error as? IOError, let reason = strerror(error.errnoCode) {
      return String(cString: reason)
    }
    let text = "\(error)"
    return text.count > 300 ? String(text.prefix(300)) + "…" : text
  }

  /// A JSON answer decoded.
  func decode<T: Decodable>(_ type: T.Type, from bytes: [UInt8]) throws -> T {
    do {
      return try JSONDecoder().decode(type, from: Data(bytes))
    } catch {
      throw Failure(description: "the server's answer is not the JSON expected: \(error)")
    }
  }

  static func timeAmount(_ duration: Duration) -> TimeAmount {
    let (seconds, attoseconds) = duration.components
    return .nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
  }
}

/// The body of a streamed answer (a watch's messages).
typealias HTTPClientResponseBody = HTTPClientResponse.Body
