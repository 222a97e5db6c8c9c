import Foundation
import StrataEtcd

/// A certificate authority made for one test with `openssl`, and the certificates it signed: the
/// server's (for 127.0.0.1, usable as a client certificate too, as etcd's gateway presents it to its
/// own gRPC server) and a client's. Removed with its directory by ``remove()``.
struct EtcdTestCertificates {
  /// Whether `openssl` can be run (the TLS tests are skipped without it).
  static var isAvailable: Bool { openssl != nil }

  /// The skip message shown when openssl is absent.
  static let absence = "openssl is not installed (apt-get install openssl); the etcd TLS tests are skipped"

  private static let openssl: String? = ["/usr/bin/openssl", "/usr/local/bin/openssl", "/bin/openssl"].first {
    FileManager.default.isExecutableFile(atPath: $0)
  }

  let directory: String
  var ca: String { directory + "/ca.pem" }
  var serverCertificate: String { directory + "/server.pem" }
  var serverKey: String { directory + "/server-key.pem" }
  var clientCertificate: String { directory + "/client.pem" }
  var clientKey: String { directory + "/client-key.pem" }
  /// A second authority's certificate: one that signed none of these.
  var otherCA: String { directory + "/other-ca.pem" }

  /// The client's TLS settings: this authority, the client certificate and its key.
  var clientTLS: EtcdTLS { EtcdTLS(caFile: ca, certificateFile: clientCertificate, keyFile: clientKey) }

  /// Makes the authority and its certificates in a new temporary directory.
  static func make() async throws -> EtcdTestCertificates {
    guard let openssl else { throw EtcdServerError(absence) }
    let directory = FileManager.default.temporaryDirectory
      .appendingPathComponent("strata-etcd-tls-\(UUID().uuidString)").path
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    let certificates = EtcdTestCertificates(directory: directory)
    let key = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
    try "subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth,clientAuth\n"
      .write(toFile: directory + "/server.ext", atomically: true, encoding: .utf8)
    try "extendedKeyUsage=clientAuth\n".write(
      toFile: directory + "/client.ext", atomically: true, encoding: .utf8)
    for arguments in [
      ["req", "-x509"] + key + [
        "-keyout", "ca-key.pem", "-out", "ca.pem", "-days", "2", "-subj", "/CN=strata-test-ca",
      ],
      ["req", "-x509"] + key + [
        "-keyout", "other-ca-key.pem", "-out", "other-ca.pem", "-days", "2", "-subj", "/CN=strata-other-ca",
      ],
      ["req"] + key + ["-keyout", "server-key.pem", "-out", "server.csr", "-subj", "/CN=etcd"],
      [
        "x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca-key.pem", "-CAcreateserial",
        "-out", "server.pem", "-days", "2", "-extfile", "server.ext",
      ],
      ["req"] + key + ["-keyout", "client-key.pem", "-out", "client.csr", "-subj", "/CN=app"],
      [
        "x509", "-req", "-in", "client.csr", "-CA", "ca.pem", "-CAkey", "ca-key.pem", "-CAcreateserial",
        "-out", "client.pem", "-days", "2", "-extfile", "client.ext",
      ],
    ] {
      try await run(openssl, arguments, in: directory)
    }
    return certificates
  }

  /// Removes the directory and everything in it.
  func remove() {
    try? FileManager.default.removeItem(atPath: directory)
  }

  /// Runs `executable` in `directory` and waits for it without blocking a thread (its termination
  /// handler resumes the wait); kills it when it runs past `timeout`. Throws when it fails.
  private static func run(
    _ executable: String, _ arguments: [String], in directory: String, timeout: Duration = .seconds(60)
  ) async throws {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    process.currentDirectoryURL = URL(fileURLWithPath: directory)
    let log = directory + "/openssl.log"
    _ = FileManager.default.createFile(atPath: log, contents: nil)
    let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: log))
    defer { try? handle.close() }
    process.standardOutput = handle
    process.standardError = handle
    // A watchdog: an openssl that hangs is killed, and its termination ends the wait.
    let watchdog = EtcdShared<Task<Void, Never>?>(nil)
    defer { watchdog.value?.cancel() }
    let status: Int32 = try await withCheckedThrowingContinuation { continuation in
      process.terminationHandler = { continuation.resume(returning: $0.terminationStatus) }
      do {
        try process.run()
      } catch {
        process.terminationHandler = nil
        continuation.resume(throwing: error)
        return
      }
      let pid = process.processIdentifier
      watchdog.update {
        $0 = Task.detached {
          do { try await Task.sleep(for: timeout) } catch { return }
          kill(pid, SIGKILL)
        }
      }
    }
    guard status == 0 else {
      let output = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
      throw EtcdServerError(
        "openssl \(arguments.joined(separator: " ")) failed (\(status)): \(output.suffix(500))")
    }
  }
}
