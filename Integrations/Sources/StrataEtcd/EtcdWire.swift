#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// The JSON shapes of etcd's HTTP/JSON gateway (grpc-gateway): keys and values in base64, 64-bit
/// numbers as strings.
enum EtcdWire {
  /// A `/v3/kv/range` request over `[key, rangeEnd)`.
  struct RangeRequest: Encodable {
    var key: String
    var range_end: String
  }

  /// A `/v3/kv/range` request that only counts the keys of `[key, rangeEnd)`.
  struct CountRequest: Encodable {
    var key: String
    var range_end: String
    var count_only: Bool
    /// Whether the member answers from its own store, without asking the leader.
    var serializable = false
  }

  /// A `/v3/watch` request: one watch over `[key, rangeEnd)` from `startRevision` (0: from now).
  struct WatchRequest: Encodable {
    struct Create: Encodable {
      var key: String
      var range_end: String
      var start_revision: String?
      var progress_notify: Bool
    }
    var create_request: Create
  }

  /// A `/v3/kv/put` request (tests and tools use it).
  struct PutRequest: Encodable {
    var key: String
    var value: String
  }

  /// A `/v3/auth/authenticate` request: a user's name and password.
  struct AuthenticateRequest: Encodable {
    var name: String
    var password: String
  }

  /// The answer to an authenticate request: the token later requests carry (`Authorization`).
  struct AuthenticateResponse: Decodable {
    var token: String?
  }

  /// A `/v3/kv/compaction` request.
  struct CompactionRequest: Encodable {
    var revision: String
    var physical: Bool
  }

  /// The header every response carries: the store's revision, and which cluster and member answered.
  struct Header: Decodable {
    var revision: Revision?
    var cluster_id: ID?
    var member_id: ID?
    var raft_term: Revision?
  }

  /// A stored key and its value.
  struct KeyValue: Decodable {
    var key: String?
    var value: String?
    var mod_revision: Revision?
    /// The revision that created the key (equal to `mod_revision` for a put that created it).
    var create_revision: Revision?
  }

  /// The answer to a range request.
  struct RangeResponse: Decodable {
    var header: Header?
    var kvs: [KeyValue]?
  }

  /// One event of a watch.
  struct Event: Decodable {
    var type: String?
    var kv: KeyValue?
  }

  /// One message of a watch's stream: `{"result": …}` or `{"error": …}`.
  struct WatchMessage: Decodable {
    struct Result: Decodable {
      var header: Header?
      var created: Bool?
      var canceled: Bool?
      var compact_revision: Revision?
      var cancel_reason: String?
      var events: [Event]?
    }
    struct Failure: Decodable {
      var message: String?
      var code: Int?
    }
    var result: Result?
    var error: Failure?
  }

  /// An error body: `{"error": "…", "code": 14, "message": "…"}`.
  struct ErrorBody: Decodable {
    var message: String?
    var error: String?
  }

  /// A revision: a 64-bit number that the gateway writes as a string (and a client may write as a
  /// number).
  typealias Revision = Number<Int>

  /// A 64-bit unsigned id (a cluster's or a member's), written as a string (or a number).
  typealias ID = Number<UInt64>

  /// A 64-bit number that the gateway writes as a string (and a client may write as a number).
  struct Number<Value: FixedWidthInteger & Decodable>: Decodable {
    var value: Value

    /// The number `value` (a message of etcd's gRPC API, in the gateway's shape).
    init(_ value: Value) { self.value = value }

    init(from decoder: any Decoder) throws {
      // A string first: the gateway's way, and a failed decode (a thrown error) for each of 10,000
      // keys is most of a range read's decoding.
      let container = try decoder.singleValueContainer()
      if let text = try? container.decode(String.self) {
        guard let number = Value(text) else {
          throw DecodingError.dataCorruptedError(in: container, debugDescription: "not a number: \(text)")
        }
        value = number
      } else {
        value = try container.decode(Value.self)
      }
    }
  }

  /// Bytes as base64.
  static func base64(_ bytes: [UInt8]) -> String { Data(bytes).base64EncodedString() }

  /// Text (UTF-8) as base64.
  static func base64(_ text: String) -> String { base64(Array(text.utf8)) }

  /// The bytes of a base64 string, or `nil` when it is not base64.
  static func bytes(base64 text: String?) -> [UInt8]? {
    guard let text else { return [] }
    return Data(base64Encoded: text).map { Array($0) }
  }

  /// The end of the range that holds every key starting with `prefix`: the prefix with its last byte
  /// that is not 0xff incremented (etcd's `clientv3.GetPrefixRangeEnd`); `[0]` (every key) when none.
  static func prefixRangeEnd(_ prefix: [UInt8]) -> [UInt8] {
    var end = prefix
    while let last = end.last {
      if last < 0xff {
        end[end.count - 1] = last + 1
        return end
      }
      end.removeLast()
    }
    return [0]
  }
}
