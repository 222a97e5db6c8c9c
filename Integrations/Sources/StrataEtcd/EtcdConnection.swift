package import AsyncHTTPClient
import FoundationEssentials
import NIOCore
import NIOHTTP1

/// etcd's HTTP/JSON gateway, through an `HTTPClient`: range reads, watches, and (for tests and tools)
/// puts, deletes and compactions.
package struct EtcdConnection: Sendable {
  /// A request that failed: the server could not be reached, or answered with an error.
  package struct Failure: Error, CustomStringConvertible {
    /// What went wrong, as a phrase.
    package var description: String
  }

  /// One key read: its bytes, its value's bytes, and the revision that last changed it.
  package struct Entry: Sendable {
    package var key: [UInt8]
    package var value: [UInt8]
    package var modRevision: Int
  }

  let client: HTTPClient
  /// `http://host:port`, without a trailing slash.
  package let endpoint: String
  let requestTimeout: Duration

  /// A connection to `endpoint` (`http://127.0.0.1:2379`).
  package init(client: HTTPClient, endpoint: String, requestTimeout: Duration) {
    self.client = client
    self.endpoint = endpoint.hasSuffix("/") ? String(endpoint.dropLast()) : endpoint
    self.requestTimeout = requestTimeout
  }

  /// Every key that starts with `prefix`, in key order, and the store's revision.
  package func range(prefix: [UInt8]) async throws -> (revision: Int, entries: [Entry]) {
    let body = EtcdWire.RangeRequest(
      key: EtcdWire.base64(prefix), range_end: EtcdWire.base64(EtcdWire.prefixRangeEnd(prefix)))
    let response = try decode(EtcdWire.RangeResponse.self, from: try await post("/v3/kv/range", body))
    let entries = try (response.kvs ?? []).map { kv in
      guard let key = EtcdWire.bytes(base64: kv.key), let value = EtcdWire.bytes(base64: kv.value) else {
        throw Failure(description: "the server sent a key or value that is not base64")
      }
      return Entry(key: key, value: value, modRevision: kv.mod_revision?.value ?? 0)
    }
    return (response.header?.revision?.value ?? 0, entries)
  }

  /// Asks etcd how many keys start with `prefix` (a small linearizable read): throws when etcd does
  /// not answer within the request timeout.
  func check(prefix: [UInt8]) async throws {
    let body = EtcdWire.CountRequest(
      key: EtcdWire.base64(prefix), range_end: EtcdWire.base64(EtcdWire.prefixRangeEnd(prefix)),
      count_only: true)
    _ = try await post("/v3/kv/range", body)
  }

  /// Opens a watch of every key that starts with `prefix`, from `startRevision` (`nil`: from now), and
  /// returns its stream of messages, one JSON object a line.
  func watch(prefix: [UInt8], startRevision: Int?) async throws -> HTTPClientResponseBody {
    let body = EtcdWire.WatchRequest(
      create_request: .init(
        key: EtcdWire.base64(prefix), range_end: EtcdWire.base64(EtcdWire.prefixRangeEnd(prefix)),
        start_revision: startRevision.map(String.init), progress_notify: true))
    let response = try await send("/v3/watch", body)
    guard response.status == .ok else {
      throw Failure(description: try await errorText(response))
    }
    return response.body
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

  /// Compacts the store's history up to `revision`: watches from before it are cancelled.
  package func compact(to revision: Int) async throws {
    _ = try await post(
      "/v3/kv/compaction", EtcdWire.CompactionRequest(revision: String(revision), physical: true))
  }

  /// Posts a JSON body and returns the answer's bytes; an answer other than 200 is a failure.
  private func post(_ path: String, _ body: some Encodable) async throws -> [UInt8] {
    let response = try await send(path, body)
    guard response.status == .ok else {
      throw Failure(description: try await errorText(response))
    }
    var buffer = try await response.body.collect(upTo: 64 << 20)
    return buffer.readBytes(length: buffer.readableBytes) ?? []
  }

  /// Sends a POST request with a JSON body; the request timeout covers the answer's head.
  private func send(_ path: String, _ body: some Encodable) async throws -> HTTPClientResponse {
    var request = HTTPClientRequest(url: endpoint + path)
    request.method = .POST
    request.headers.add(name: "Content-Type", value: "application/json")
    request.body = .bytes(ByteBuffer(bytes: try JSONEncoder().encode(body)))
    do {
      return try await client.execute(request, timeout: Self.timeAmount(requestTimeout))
    } catch let error as HTTPClientError {
      throw Failure(description: "\(error)")
    }
  }

  /// The message of an error answer.
  private func errorText(_ response: HTTPClientResponse) async throws -> String {
    var buffer = try await response.body.collect(upTo: 1 << 20)
    let bytes = buffer.readBytes(length: buffer.readableBytes) ?? []
    let body = try? JSONDecoder().decode(EtcdWire.ErrorBody.self, from: Data(bytes))
    let message = body?.message ?? body?.error ?? String(decoding: bytes.prefix(200), as: UTF8.self)
    return "HTTP \(response.status.code): \(message)"
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
