public import AsyncHTTPClient
import NIOCore

extension EtcdLayer {
  /// The HTTP client etcd sources use unless given one: shared by the process and never shut down,
  /// it fails a request at once when etcd cannot be reached (the source retries with its own
  /// ``EtcdRetry``, rather than each request retrying until its timeout), connects within 5 s, and
  /// has no read timeout, so an idle watch stays open.
  public static let sharedClient: HTTPClient = {
    var configuration = HTTPClient.Configuration(
      timeout: HTTPClient.Configuration.Timeout(connect: .seconds(5), read: nil))
    configuration.connectionPool.retryConnectionEstablishment = false
    return HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
  }()
}
