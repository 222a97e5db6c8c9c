import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

@testable import StrataEtcd

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// A real etcd server for the tests: started on free loopback ports in a temporary data directory,
/// stopped (and reaped) by ``stop()``, started again on the same ports and data by ``start()``, and
/// removed with its directory by ``shutdown()``. Alone it is a one-member cluster; an
/// ``EtcdClusterProcess`` makes several of them members of one cluster.
final class EtcdServerProcess: @unchecked Sendable {
  /// The `etcd` binary, or `nil` when it is not installed (the tests that need it are then skipped):
  /// `STRATA_ETCD_BINARY` when set (to check the skip: `STRATA_ETCD_BINARY=/nonexistent`), else the
  /// first `etcd` on `PATH`.
  static let binary: String? = {
    let environment = ProcessInfo.processInfo.environment
    if let chosen = environment["STRATA_ETCD_BINARY"] { return access(chosen, X_OK) == 0 ? chosen : nil }
    let path = environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
    return (path.split(separator: ":").map { "\($0)/etcd" } + ["/usr/bin/etcd"]).first {
      access($0, X_OK) == 0
    }
  }()

  /// Whether tests can start etcd.
  static var isAvailable: Bool { binary != nil }

  /// The skip message shown when etcd is absent.
  static let absence = "etcd is not installed (apt-get install etcd-server); the etcd tests are skipped"

  /// TLS on the client URL: the server's certificate and key from a test authority, which also
  /// signs the client certificates it asks for when `requiresClientCertificate` (`--trusted-ca-file`
  /// and `--client-cert-auth`).
  struct TLS {
    var certificates: EtcdTestCertificates
    var requiresClientCertificate: Bool
  }

  /// `http://127.0.0.1:PORT` (`https://` with TLS).
  let endpoint: String
  /// The client URL's TLS (`nil`: plain HTTP).
  let tls: TLS?
  /// More options for etcd (`--auth-token-ttl 1`).
  let arguments: [String]
  /// The user the tests' own requests authenticate as, once authentication is on.
  private(set) var credentials: EtcdCredentials?
  /// A client for the tests' own puts, deletes and compactions (the root user once authentication is
  /// on; the test authority's client certificate with TLS).
  var connection: EtcdConnection {
    EtcdConnection(
      client: .shared, endpoint: endpoint, requestTimeout: .seconds(10), credentials: credentials,
      tls: tls?.certificates.clientTLS)
  }
  let clientPort: Int
  let peerPort: Int
  let directory: String
  /// The member's name (`--name`).
  let name: String
  /// `http://127.0.0.1:PEERPORT`.
  var peerURL: String { "http://127.0.0.1:\(peerPort)" }
  /// The cluster's members (`--initial-cluster`): this server alone unless set before the first start.
  var initialCluster: String
  /// `--initial-cluster-token`: another token after ``wipeData()`` makes a cluster with another id (the
  /// same token and members make the same id again).
  var clusterToken = "etcd-cluster"
  private var process: Process?
  /// The end of `process`, awaited by ``stop()`` and ``crash()``.
  private var exit: ProcessExit?

  /// Picks free ports and makes a temporary directory (in memory, under `/dev/shm`, when `inMemory`:
  /// etcd's commits then skip the disk's fsync); does not start the server.
  init(inMemory: Bool = false, name: String = "strata-test", tls: TLS? = nil, arguments: [String] = []) throws
  {
    clientPort = try Self.freePort()
    peerPort = try Self.freePort()
    self.name = name
    self.tls = tls
    self.arguments = arguments
    initialCluster = "\(name)=http://127.0.0.1:\(peerPort)"
    endpoint = "\(tls == nil ? "http" : "https")://127.0.0.1:\(clientPort)"
    let base = inMemory && access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp"
    var template = Array("\(base)/strata-etcd-XXXXXX".utf8CString)
    guard mkdtemp(&template) != nil else { throw EtcdServerError("mkdtemp failed") }
    directory = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
  }

  deinit { shutdown() }

  /// A server started on fresh ports, trying again on other ports (up to three times) when one it
  /// picked was taken before etcd could listen on it.
  static func started(inMemory: Bool = false) async throws -> EtcdServerProcess {
    var failure: (any Error)?
    for _ in 0..<3 {
      let server = try EtcdServerProcess(inMemory: inMemory)
      do {
        try await server.start()
        return server
      } catch {
        server.shutdown()
        failure = error
      }
    }
    throw failure ?? EtcdServerError("etcd did not start")
  }

  /// Starts the server and waits (up to `timeout`) until it answers a range request.
  func start(timeout: Duration = .seconds(60)) async throws {
    try launch()
    try await waitUntilReady(timeout: timeout)
  }

  /// Starts the server's process without waiting for it (a cluster's members must all run before any
  /// answers).
  func launch() throws {
    guard process == nil else { return }
    guard let binary = Self.binary else { throw EtcdServerError(Self.absence) }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: binary)
    process.arguments = [
      "--name", name, "--data-dir", directory + "/data",
      "--listen-client-urls", endpoint, "--advertise-client-urls", endpoint,
      "--listen-peer-urls", peerURL, "--initial-advertise-peer-urls", peerURL,
      "--initial-cluster", initialCluster, "--initial-cluster-token", clusterToken, "--log-level", "error",
    ]
    if let tls {
      process.arguments! += [
        "--cert-file", tls.certificates.serverCertificate, "--key-file", tls.certificates.serverKey,
      ]
      // etcd asks every client for a certificate once it has a CA to check them against.
      if tls.requiresClientCertificate {
        process.arguments! += ["--trusted-ca-file", tls.certificates.ca, "--client-cert-auth"]
      }
    }
    process.arguments! += arguments
    let log = directory + "/etcd.log"
    guard FileManager.default.createFile(atPath: log, contents: nil) else {
      throw EtcdServerError("cannot create \(log)")
    }
    let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: log))
    handle.seekToEndOfFile()
    process.standardOutput = handle
    process.standardError = handle
    let exit = ProcessExit()
    process.terminationHandler = { _ in exit.finish() }
    try process.run()
    self.process = process
    self.exit = exit
  }

  /// Waits (up to `timeout`) until the launched server answers a (linearizable) range request: it
  /// runs and its cluster has a leader.
  func waitUntilReady(timeout: Duration = .seconds(60)) async throws {
    guard let process else { throw EtcdServerError("etcd was not launched") }
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
      if !process.isRunning {
        self.process = nil
        throw EtcdServerError("etcd exited at start: \(logTail())")
      }
      if await isReady() { return }
      try await Task.sleep(for: .milliseconds(50))
    }
    if process.isRunning, await isReady() { return }  // once more at the deadline
    await stop()
    throw EtcdServerError("etcd did not answer within \(timeout): \(logTail())")
  }

  /// Freezes the server (SIGSTOP): its connections stay open, and nothing answers.
  func freeze() {
    if let process { kill(process.processIdentifier, SIGSTOP) }
  }

  /// Lets a frozen server go on (SIGCONT).
  func thaw() {
    if let process { kill(process.processIdentifier, SIGCONT) }
  }

  /// Kills the server at once (SIGKILL, as a crash or a power loss) and waits until it is reaped; the
  /// data stay.
  func crash() async {
    guard let process, let exit else { return }
    self.process = nil
    if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    await exit.wait()
  }

  /// Stops the server (SIGTERM, then SIGKILL after 10 s) and waits until it is reaped; the data stay.
  func stop() async {
    guard let process, let exit else { return }
    self.process = nil
    guard process.isRunning else { return await exit.wait() }
    kill(process.processIdentifier, SIGCONT)  // a frozen server must run to handle SIGTERM
    kill(process.processIdentifier, SIGTERM)
    if await !exit.wait(timeout: .seconds(10)) { kill(process.processIdentifier, SIGKILL) }
    await exit.wait()
  }

  /// Removes the server's data (it must be stopped): the next start is a new, empty cluster.
  func wipeData() throws {
    guard process == nil else { throw EtcdServerError("stop the server before wiping its data") }
    try FileManager.default.removeItem(atPath: directory + "/data")
  }

  /// Kills the server (Foundation reaps it; nothing waits here, so `defer` and `deinit` can call it)
  /// and removes its directory.
  func shutdown() {
    if let process, process.isRunning {
      kill(process.processIdentifier, SIGCONT)
      kill(process.processIdentifier, SIGKILL)
    }
    process = nil
    try? FileManager.default.removeItem(atPath: directory)
  }

  /// Whether the server answers a range request now.
  private func isReady() async -> Bool {
    let probe = EtcdConnection(
      client: .shared, endpoint: endpoint, requestTimeout: .seconds(2), credentials: credentials,
      tls: tls?.certificates.clientTLS)
    return (try? await probe.range(prefix: [0])) != nil
  }

  /// Turns authentication on (over TLS when the server has it): a `root` user, and a user `app` with `appPassword`
  /// that may read the keys below `readablePrefix` and nothing else. The tests' own requests
  /// authenticate as `root` from then on.
  func enableAuthentication(readablePrefix: String, appPassword: String) async throws {
    let rootPassword = "root-password-2b9c"
    let prefix = Array(readablePrefix.utf8)
    let (key, end) = (
      Data(prefix).base64EncodedString(), Data(EtcdWire.prefixRangeEnd(prefix)).base64EncodedString()
    )
    for (path, body) in [
      ("role/add", #"{"name":"root"}"#),
      ("user/add", #"{"name":"root","password":"\#(rootPassword)"}"#),
      ("user/grant", #"{"user":"root","role":"root"}"#),
      ("role/add", #"{"name":"reader"}"#),
      (
        "role/grant",
        #"{"name":"reader","perm":{"permType":"READ","key":"\#(key)","range_end":"\#(end)"}}"#
      ),
      ("user/add", #"{"name":"app","password":"\#(appPassword)"}"#),
      ("user/grant", #"{"user":"app","role":"reader"}"#),
      ("enable", "{}"),
    ] {
      var request = HTTPClientRequest(url: endpoint + "/v3/auth/" + path)
      request.method = .POST
      request.body = .bytes(ByteBuffer(string: body))
      if let tls { request.tlsConfiguration = try EtcdTLSConfiguration(tls.certificates.clientTLS).current() }
      let response = try await HTTPClient.shared.execute(request, timeout: .seconds(10))
      let answer = try await response.body.collect(upTo: 1 << 20)
      guard response.status == .ok else {
        throw EtcdServerError("auth/\(path): HTTP \(response.status.code): \(String(buffer: answer))")
      }
    }
    credentials = EtcdCredentials(user: "root", password: rootPassword)
  }

  private func logTail() -> String {
    let text = (try? String(contentsOfFile: directory + "/etcd.log", encoding: .utf8)) ?? ""
    return String(text.suffix(2000))
  }

  /// A loopback port nobody listens on now (the kernel's pick).
  private static func freePort() throws -> Int {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { throw EtcdServerError("socket failed") }
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = 0
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
        bind(fd, pointer, length) == 0 && getsockname(fd, pointer, &length) == 0
      }
    }
    guard bound else { throw EtcdServerError("bind failed") }
    return Int(UInt16(bigEndian: address.sin_port))
  }
}

/// A test-support failure with a message.
struct EtcdServerError: Error, CustomStringConvertible {
  var description: String
  init(_ description: String) { self.description = description }
}

extension EtcdServerProcess {
  /// Runs `etcdctl ARGUMENTS` against the server (with its TLS client certificate, as the tests' user):
  /// over gRPC, which a server with both authentication and `--client-cert-auth` still serves. Waits
  /// up to 20 s for it, then kills it; throws unless it exits with status 0.
  func etcdctl(_ arguments: [String]) async throws {
    let environment = ProcessInfo.processInfo.environment
    let path = environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
    let candidates: [String] = path.split(separator: ":").map { "\($0)/etcdctl" } + ["/usr/bin/etcdctl"]
    guard let binary = candidates.first(where: { access($0, X_OK) == 0 })
    else { throw EtcdServerError("etcdctl is not installed (apt-get install etcd-client)") }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: binary)
    var options = ["--endpoints=\(endpoint)", "--dial-timeout=5s", "--command-timeout=10s"]
    if let tls {
      let certificates = tls.certificates
      options += [
        "--cacert=\(certificates.ca)", "--cert=\(certificates.clientCertificate)",
        "--key=\(certificates.clientKey)",
      ]
    }
    if let credentials { options.append("--user=\(credentials.user):\(credentials.password)") }
    process.arguments = options + arguments
    process.environment = ["ETCDCTL_API": "3", "PATH": path]
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    let exit = ProcessExit()
    process.terminationHandler = { _ in exit.finish() }
    try process.run()
    let deadline = ContinuousClock.now + .seconds(20)
    while !exit.isDone && ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(10)) }
    if !exit.isDone { kill(process.processIdentifier, SIGKILL) }
    await exit.wait()
    guard process.terminationStatus == 0 else {
      throw EtcdServerError(
        "etcdctl \(arguments.joined(separator: " ")) exited with \(process.terminationStatus)")
    }
  }
}
