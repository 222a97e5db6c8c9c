/// How an ``EtcdLayer`` talks to etcd: through etcd's HTTP/JSON gateway, or through its native gRPC
/// API.
///
/// Both reach the same client URLs (etcd serves gRPC and the gateway on one port) and behave alike:
/// the same endpoints and failover, ``EtcdCredentials``, ``EtcdTLS``, checks of the cluster, status,
/// metrics and errors. They differ in what etcd spends on a read of the whole prefix: the gateway turns
/// each key into JSON, so at 10,000 keys its answer alone takes 1.5–2.4× as long as
/// `etcdctl get --prefix` (BENCHMARKS.md), while gRPC (the default) answers in protobuf, as to etcdctl.
public struct EtcdTransport: Sendable, Hashable, CustomStringConvertible {
  enum Kind: Sendable, Hashable {
    case gateway
    case grpc
  }

  let kind: Kind

  /// Everything through etcd's HTTP/JSON gateway (`/v3/kv/range`, `/v3/watch`,
  /// `/v3/auth/authenticate`), with the layer's `HTTPClient`: for a network that lets only HTTP/1.1
  /// through, or a program that wants its own client's settings.
  public static let gateway = EtcdTransport(kind: .gateway)

  /// Everything through etcd's gRPC API, as etcdctl and the Go client talk to etcd: the reads of the
  /// prefix and the watch's checks (`KV.Range`), the watch (`Watch.Watch`) and authentication
  /// (`Auth.Authenticate`, the token sent as the `token` metadata), over HTTP/2 (grpc-swift and
  /// SwiftNIO). The default. The watch keeps one connection while it is open, and its checks go over
  /// it; each whole read of the prefix opens its own. TLS comes from ``EtcdTLS`` (without one, an
  /// `https://` endpoint is checked against the system's authorities); the layer's `HTTPClient` is not
  /// used.
  ///
  /// It reads a large prefix much faster than the gateway, and it serves a cluster that has both
  /// authentication and `--client-cert-auth` on, whose gateway (etcd 3.4) refuses every request.
  public static let grpc = EtcdTransport(kind: .grpc)

  /// `gateway` or `grpc`.
  public var description: String {
    switch kind {
    case .gateway: "gateway"
    case .grpc: "grpc"
    }
  }
}
