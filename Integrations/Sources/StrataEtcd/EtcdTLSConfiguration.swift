import NIOSSL
import Synchronization

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// Turns an ``EtcdTLS`` into the TLS configuration of each request: reads its files, and reads them
/// again (and rebuilds the configuration) only when one of them changed.
final class EtcdTLSConfiguration: Sendable {
  let settings: EtcdTLS
  /// The files' bytes as last read, and the configuration made from them.
  private let made: Mutex<(files: [[UInt8]?], configuration: TLSConfiguration)?>

  init(_ settings: EtcdTLS) {
    self.settings = settings
    made = Mutex(nil)
  }

  /// The configuration for a request now; throws a failure naming the file when one cannot be read
  /// or is not what it should be.
  func current() throws(EtcdConnection.Failure) -> TLSConfiguration {
    if settings.certificateFile != nil && settings.keyFile == nil {
      throw Self.failure("EtcdTLS has a certificateFile and no keyFile: give the client certificate's key")
    }
    if settings.keyFile != nil && settings.certificateFile == nil {
      throw Self.failure("EtcdTLS has a keyFile and no certificateFile: give the client certificate")
    }
    let files = try [settings.caFile, settings.certificateFile, settings.keyFile].map {
      (path: String?) throws(EtcdConnection.Failure) -> [UInt8]? in try path.map(Self.read)
    }
    if let made = made.withLock({ $0 }), made.files == files { return made.configuration }
    var configuration = TLSConfiguration.makeClientConfiguration()
    if let path = settings.caFile, let bytes = files[0] {
      configuration.trustRoots = .certificates(try Self.certificates(bytes, path: path, what: "CA"))
    }
    if let path = settings.certificateFile, let bytes = files[1], let keyPath = settings.keyFile,
      let key = files[2]
    {
      configuration.certificateChain = try Self.certificates(bytes, path: path, what: "client").map {
        .certificate($0)
      }
      do {
        configuration.privateKey = .privateKey(try NIOSSLPrivateKey(bytes: key, format: .pem))
      } catch {
        throw Self.failure("the client key file \(keyPath) holds no PEM private key (\(error))")
      }
    }
    made.withLock { $0 = (files, configuration) }
    return configuration
  }

  /// The PEM bytes of the certificate authority, the client certificate and its key as the
  /// configuration for a request now was made from (`nil` where not given): for etcd's gRPC
  /// transport, which builds its own TLS context. Throws as ``current()`` does.
  func currentFiles() throws(EtcdConnection.Failure) -> (ca: [UInt8]?, certificate: [UInt8]?, key: [UInt8]?) {
    _ = try current()
    let files = made.withLock { $0?.files } ?? [nil, nil, nil]
    return (files[0], files[1], files[2])
  }

  /// The certificates in the PEM file `path`; at least one.
  private static func certificates(
    _ bytes: [UInt8], path: String, what: String
  ) throws(EtcdConnection.Failure) -> [NIOSSLCertificate] {
    let certificates: [NIOSSLCertificate]
    do {
      certificates = try NIOSSLCertificate.fromPEMBytes(bytes)
    } catch {
      throw failure("the \(what) certificate file \(path) is not PEM (\(error))")
    }
    guard !certificates.isEmpty else {
      throw failure("the \(what) certificate file \(path) holds no certificate")
    }
    return certificates
  }

  /// The bytes of the file at `path` (at most 1 MiB: a certificate bundle is far smaller).
  private static func read(_ path: String) throws(EtcdConnection.Failure) -> [UInt8] {
    let data: Data
    do {
      data = try Data(contentsOf: URL(fileURLWithPath: path))
    } catch {
      throw failure("cannot read \(path): \(error)")
    }
    guard data.count <= 1 << 20 else { throw failure("\(path) is larger than 1 MiB; it is not a PEM file") }
    return Array(data)
  }

  /// A failure every member would give alike: not retried elsewhere.
  private static func failure(_ description: String) -> EtcdConnection.Failure {
    EtcdConnection.Failure(description: "TLS: " + description)
  }
}
