/// TLS to etcd's members, as `etcdctl --cacert --cert --key`: the certificate authority that signed
/// the members' certificates, and the client's certificate and key when the cluster asks for one
/// (etcd's `--client-cert-auth`).
///
/// Every file is PEM. The layer reads them before it connects, and again when one of them changed,
/// so a renewed certificate is used from the next connection on, without a restart. A file that is
/// missing or is not PEM fails the request with an error naming the file (the layer's `failed`
/// event); nothing falls back to an unverified connection. The settings apply to `https://`
/// endpoints.
///
/// <!-- snippet: Integrations/Tests/StrataIntegrationsTests/DocSnippets/IntegrationSnippets.swift#EtcdTLS -->
/// ```swift
/// let etcd = EtcdLayer(
///   endpoints: ["https://10.0.0.5:2379", "https://10.0.0.6:2379", "https://10.0.0.7:2379"],
///   prefix: "/config/myapp/",
///   credentials: EtcdCredentials(user: "myapp", password: password),
///   tls: EtcdTLS(
///     caFile: "/etc/myapp/etcd-ca.pem",
///     certificateFile: "/etc/myapp/etcd-client.pem", keyFile: "/etc/myapp/etcd-client-key.pem"),
///   transport: .grpc)
/// ```
public struct EtcdTLS: Sendable, Hashable {
  /// The certificates of the authorities that sign the members' certificates (`nil`: the system's
  /// trusted authorities).
  public var caFile: String?
  /// The client's certificate (with any intermediate certificates after it), for a cluster that asks
  /// for one; `keyFile` must then be given too.
  public var certificateFile: String?
  /// The client certificate's private key.
  public var keyFile: String?

  /// TLS trusting the authorities in `caFile` (`nil`: the system's), presenting the client
  /// certificate in `certificateFile` with the key in `keyFile` when both are given.
  public init(caFile: String? = nil, certificateFile: String? = nil, keyFile: String? = nil) {
    self.caFile = caFile
    self.certificateFile = certificateFile
    self.keyFile = keyFile
  }
}
