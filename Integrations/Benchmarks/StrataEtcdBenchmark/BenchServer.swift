import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import StrataEtcd

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// An etcd server for the benchmark: started on free loopback ports in a fresh data directory (in
/// memory under `/dev/shm`, or on disk under `/tmp`), stopped, reaped and removed by ``shutdown()``.
/// (The test target's `EtcdServerProcess` does the same, with restarts and faults; a benchmark must
/// not depend on a test target.)
final class BenchServer: @unchecked Sendable {
  /// `http://127.0.0.1:PORT`.
  let endpoint: String
  let directory: String
  private let process: Process

  /// Starts `etcd` and waits (up to 60 s) until it answers a range request.
  init(etcd: String, inMemory: Bool) async throws {
    let clientPort = try Self.freePort()
    let peerPort = try Self.freePort()
    endpoint = "http://127.0.0.1:\(clientPort)"
    var template = Array("\(inMemory ? "/dev/shm" : "/tmp")/strata-etcd-bench-XXXXXX".utf8CString)
    guard mkdtemp(&template) != nil else { throw BenchError("mkdtemp failed") }
    directory = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    let peer = "http://127.0.0.1:\(peerPort)"
    process = Process()
    process.executableURL = URL(fileURLWithPath: etcd)
    process.arguments = [
      "--name", "bench", "--data-dir", directory + "/data",
      "--listen-client-urls", endpoint, "--advertise-client-urls", endpoint,
      "--listen-peer-urls", peer, "--initial-advertise-peer-urls", peer,
      "--initial-cluster", "bench=\(peer)", "--log-level", "error",
    ]
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    try process.run()
    let deadline = ContinuousClock.now + .seconds(60)
    while ContinuousClock.now < deadline {
      if !process.isRunning { break }
      if await isReady() { return }
      try await Task.sleep(for: .milliseconds(50))
    }
    shutdown()
    throw BenchError("etcd did not answer within 60 s")
  }

  /// Stops the server (SIGTERM, then SIGKILL after 10 s), reaps it and removes its directory.
  func shutdown() {
    if process.isRunning {
      kill(process.processIdentifier, SIGTERM)
      let deadline = ContinuousClock.now + .seconds(10)
      while process.isRunning && ContinuousClock.now < deadline { usleep(10_000) }
      if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }
    process.waitUntilExit()
    try? FileManager.default.removeItem(atPath: directory)
  }

  private func isReady() async -> Bool {
    var request = HTTPClientRequest(url: endpoint + "/v3/kv/range")
    request.method = .POST
    request.body = .bytes(ByteBuffer(string: #"{"key":"AA=="}"#))
    guard let response = try? await HTTPClient.shared.execute(request, timeout: .seconds(2)) else {
      return false
    }
    _ = try? await response.body.collect(upTo: 1 << 20)
    return response.status == .ok
  }

  /// A loopback port nobody listens on now (the kernel's pick).
  private static func freePort() throws -> Int {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { throw BenchError("socket failed") }
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
        bind(fd, pointer, length) == 0 && getsockname(fd, pointer, &length) == 0
      }
    }
    guard bound else { throw BenchError("bind failed") }
    return Int(UInt16(bigEndian: address.sin_port))
  }
}

/// A benchmark failure with a message.
struct BenchError: Error, CustomStringConvertible {
  var description: String
  init(_ description: String) { self.description = description }
}
