import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import StrataEtcd

/// A real etcd cluster for the tests: `count` members on free loopback ports, each with its own
/// data directory, started together; each member can be killed, stopped or frozen on its own, and
/// ``shutdown()`` (or the last reference's going away) kills and reaps them all and removes their
/// directories.
final class EtcdClusterProcess: @unchecked Sendable {
  let members: [EtcdServerProcess]

  /// The members' client URLs, in order.
  var endpoints: [String] { members.map(\.endpoint) }

  private init(count: Int) throws {
    var members: [EtcdServerProcess] = []
    for index in 0..<count { members.append(try EtcdServerProcess(name: "member\(index)")) }
    let cluster = members.map { "\($0.name)=\($0.peerURL)" }.joined(separator: ",")
    for member in members { member.initialCluster = cluster }
    self.members = members
  }

  deinit { shutdown() }

  /// A cluster of `count` members started and with a leader, trying again on other ports (up to
  /// three times) when a port it picked was taken before etcd could listen on it.
  static func started(count: Int = 3, timeout: Duration = .seconds(90)) async throws -> EtcdClusterProcess {
    var failure: (any Error)?
    for _ in 0..<3 {
      let cluster = try EtcdClusterProcess(count: count)
      do {
        for member in cluster.members { try member.launch() }
        for member in cluster.members { try await member.waitUntilReady(timeout: timeout) }
        return cluster
      } catch {
        cluster.shutdown()
        failure = error
      }
    }
    throw failure ?? EtcdServerError("the etcd cluster did not start")
  }

  /// A client for the tests' own puts, going to the members in `indices` (default: all).
  func connection(to indices: [Int]? = nil, requestTimeout: Duration = .seconds(10)) -> EtcdConnection {
    EtcdConnection(
      client: .shared, endpoints: (indices ?? Array(members.indices)).map { members[$0].endpoint },
      requestTimeout: requestTimeout)
  }

  /// The index of the member that leads the cluster now, as the first member in `indices` that
  /// answers says (`nil`: none answers, or it has no leader).
  func leader(askingAmong indices: [Int]? = nil) async -> Int? {
    for index in indices ?? Array(members.indices) {
      guard let status = await Self.status(of: members[index].endpoint), status.leader != "0" else {
        continue
      }
      for candidate in members.indices {
        if await Self.status(of: members[candidate].endpoint)?.header.member_id == status.leader {
          return candidate
        }
      }
    }
    return nil
  }

  /// Kills and reaps every member and removes their directories.
  func shutdown() {
    for member in members { member.shutdown() }
  }

  /// The answer of `/v3/maintenance/status`: who answered, and who leads.
  private struct Status: Decodable {
    struct Header: Decodable {
      var member_id: String
    }
    var header: Header
    var leader: String
  }

  private static func status(of endpoint: String) async -> Status? {
    var request = HTTPClientRequest(url: endpoint + "/v3/maintenance/status")
    request.method = .POST
    request.body = .bytes(ByteBuffer(string: "{}"))
    guard let response = try? await HTTPClient.shared.execute(request, timeout: .seconds(2)),
      var body = try? await response.body.collect(upTo: 1 << 20), response.status == .ok
    else { return nil }
    return try? JSONDecoder().decode(
      Status.self, from: Data(body.readBytes(length: body.readableBytes) ?? []))
  }
}
