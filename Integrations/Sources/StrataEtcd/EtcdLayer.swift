public import AsyncHTTPClient
public import Strata

/// A layer read from etcd v3: every key below a prefix, as a tree, followed live by etcd's watch.
///
/// Keys below the prefix become paths (`/config/myapp/server/port` → `server.port`); each value is
/// read by the source's ``EtcdValueFormat``; every value's origin names the key and the revision that
/// last changed it: `etcd:/config/myapp/server/port@rev 1234`. The layer talks to etcd's gRPC API, as
/// etcdctl does; with ``EtcdTransport/gateway`` it talks to etcd's HTTP/JSON gateway (`/v3/kv/range`,
/// `/v3/watch`) through an AsyncHTTPClient `HTTPClient` instead (at 10,000 keys its read takes about
/// four times as long).
///
/// <!-- snippet: Integrations/Tests/StrataIntegrationsTests/DocSnippets/IntegrationSnippets.swift#EtcdLayer -->
/// ```swift
/// let etcd = EtcdLayer(
///   endpoints: ["http://10.0.0.5:2379", "http://10.0.0.6:2379", "http://10.0.0.7:2379"],
///   prefix: "/config/myapp/")
/// let store = SettingsStore(layers: StandardLayout(app: "myapp").layers + [etcd])
/// await withDiscardingTaskGroup { group in
///   group.addTask { await store.run() }  // reads the prefix, then follows the watch
///   // … the service's own tasks, beside it
/// }
/// ```
///
/// Requests go to one member at a time; a member that cannot be reached, does not answer within
/// `requestTimeout`, or has no leader is left for the next one in the list (the list wraps around),
/// and the watch resumes on that member from the last revision applied: nothing is read again.
///
/// A cluster with authentication on takes ``EtcdCredentials``, one that serves TLS an ``EtcdTLS``
/// (etcdctl's `--user`, `--cacert`, `--cert`, `--key`).
///
/// What happens when things go wrong:
/// - No member can be reached (at start or later): the store runs on its other layers (and on the
///   last values read from etcd), an error names each endpoint tried and why it failed (a `failed`
///   event), and the layer tries every member again after each of ``EtcdRetry``'s jittered delays;
///   when one answers, a `recovered` event and the new values.
/// - A member fails (its connection drops, it loses its leader, it is killed): the watch moves to the
///   next member at once, from the last revision it saw, so no change is missed.
/// - A member stops answering but the connection stays open (a partition, a frozen server): a small
///   linearizable read every `checkInterval` that gets no answer within `requestTimeout` counts the
///   watch as lost (with the defaults, noticed within 8 s).
/// - The watch is lost and no other member answers (the cluster lost its quorum, or a partition left
///   the layer's member alone): the other members are asked at once, each within `requestTimeout`, so
///   the `failed` event naming each endpoint and why comes within `requestTimeout` of the loss, even
///   when they hang rather than fail; the layer keeps trying every member.
/// - The watch's revision was compacted away: the layer reads the whole prefix again; the store
///   publishes only the keys that differ.
/// - etcd's data were reset: another cluster answers (its id differs), the revision went back (a wiped
///   or restored cluster), or the prefix emptied at once (one change, or one read, leaves none of the
///   two or more keys it held). The last good values stay, and an error names
///   the old and new cluster ids and revisions (a `failed` event), until the cluster the values came
///   from answers again (another cluster), keys come back below the prefix (an emptied prefix), or the
///   program restarts (a lost history). With `followsReset: true` the layer takes the new data instead.
/// - A value that does not parse: left out, reported as an error naming the key
///   (`etcd:/config/myapp/limits:1:9: …`); the key's last good value, if it had one, stays.
public struct EtcdLayer: Layer {
  /// Where the layer sits in the stack (default ``Strata/Scope/system``: above the vendor's files,
  /// below the user's files, the environment and the command line).
  public let scope: Scope
  /// `etcd:` and the prefix: `etcd:/config/myapp/`.
  public let name: String
  /// The key prefix read, such as `/config/myapp/`.
  public let prefix: String
  /// How values are read.
  public let valueFormat: EtcdValueFormat
  /// How long the layer waits between attempts to reach etcd.
  public let retry: EtcdRetry
  /// How often, while the watch is open, the layer checks that its member still answers.
  public let checkInterval: Duration
  let connection: EtcdConnection
  let state: EtcdSourceState

  /// Creates a source over the keys below `prefix`.
  /// - Parameters:
  ///   - endpoints: the client URLs of the cluster's members (`http://127.0.0.1:2379`), tried in
  ///     this order.
  ///   - prefix: the key prefix, usually ending with `/` (`/config/myapp/`).
  ///   - credentials: the user to authenticate as, for a cluster with authentication on (`nil`:
  ///     none); see ``EtcdCredentials``.
  ///   - tls: the certificate authority, and the client certificate and key, for `https://`
  ///     endpoints (`nil`: the client's own TLS configuration); see ``EtcdTLS``.
  ///   - scope: where the layer sits in the stack.
  ///   - valueFormat: how each value is read (default: one string each).
  ///   - isSecret: whether every value is a secret (a prefix of credentials): redacted in dumps, as a
  ///     Kubernetes Secret volume's files are.
  ///   - followsReset: whether the layer takes etcd's data when they were reset (another cluster
  ///     answers, the revision went back, or the prefix emptied at once); `false` (the default)
  ///     keeps the last good values and reports an error naming the old and new cluster.
  ///   - client: the HTTP client of the ``EtcdTransport/gateway`` transport (default
  ///     ``sharedClient``; gRPC does not use it). A client with a read timeout makes an idle watch
  ///     reconnect (from its last revision: nothing is missed) each time it passes; one that retries
  ///     connections (AsyncHTTPClient's default) makes a read of an unreachable etcd wait for
  ///     `requestTimeout`.
  ///   - transport: etcd's gRPC API (``EtcdTransport/grpc``) or its HTTP/JSON gateway
  ///     (``EtcdTransport/gateway``, through `client`). `nil` (the default): gRPC, unless a `client`
  ///     of the program's own is given, which only the gateway uses (its TLS settings, its timeouts):
  ///     then the gateway.
  ///   - retry: the delays between rounds of attempts to reach etcd.
  ///   - requestTimeout: how long one request may wait for a member's answer before the next member
  ///     is tried.
  ///   - checkInterval: how often, while the watch is open, a small linearizable read checks that its
  ///     member still answers and has a leader (a partition or a frozen server leaves the watch's
  ///     connection open and silent): one that does not answer within `requestTimeout` counts as
  ///     lost. A frozen member is noticed within `checkInterval + requestTimeout`.
  public init(
    endpoints: [String] = ["http://127.0.0.1:2379"], prefix: String, credentials: EtcdCredentials? = nil,
    tls: EtcdTLS? = nil, scope: Scope = .system,
    valueFormat: EtcdValueFormat = .string, isSecret: Bool = false, followsReset: Bool = false,
    client: HTTPClient = EtcdLayer.sharedClient, transport: EtcdTransport? = nil,
    retry: EtcdRetry = EtcdRetry(),
    requestTimeout: Duration = .seconds(5), checkInterval: Duration = .seconds(3)
  ) {
    self.scope = scope
    self.prefix = prefix
    self.name = "etcd:" + prefix
    self.valueFormat = valueFormat
    self.retry = retry
    self.checkInterval = checkInterval
    self.connection = EtcdConnection(
      client: client, endpoints: endpoints, requestTimeout: requestTimeout, credentials: credentials,
      tls: tls,
      transport: transport ?? (client === EtcdLayer.sharedClient ? .grpc : .gateway))
    self.state = EtcdSourceState(
      tree: EtcdTree(prefix: Array(prefix.utf8), format: valueFormat), isSecret: isSecret,
      followsReset: followsReset)
  }

  /// How the layer talks to etcd: its HTTP/JSON gateway or its gRPC API.
  public var transport: EtcdTransport { connection.transport }

  /// The members' client URLs, in the order they are tried.
  public var endpoints: [String] { connection.endpoints.all }

  /// `true`: the layer reads etcd in ``fetch(_:)``.
  public var loadsAsynchronously: Bool { true }

  /// The last contents read, without waiting (nothing before the first fetch).
  public func load(_ context: LoadContext) -> LayerContents {
    state.contents
  }

  /// Reads the prefix from etcd; when the layer's watch keeps its keys current and has signalled a
  /// change, builds them without asking etcd (and when it signalled that it was lost, returns the last
  /// good contents with the error it reported). When no member can be read, the last good contents,
  /// with an error naming each endpoint tried, and a retry is due: a store that runs the layer's
  /// ``follow(signal:)`` is signalled to fetch again after ``EtcdRetry``'s delay.
  public func fetch(_ context: LoadContext) async -> LayerContents {
    if let failure = state.takePendingFailure() { return failure }
    if let current = state.contentsFromWatch(options: context.options) { return current }
    do {
      let (header, entries) = try await connection.range(prefix: Array(prefix.utf8))
      return state.read(entries, header: header, options: context.options)
    } catch {
      if Task.isCancelled { return state.contents }
      return state.failed(state.unreadable("\(error)"), retry: retry)
    }
  }

  /// Follows etcd until the task is cancelled, then returns promptly: signals after each
  /// (re)connection of etcd's watch, once per batch of changes below the prefix, and when the watch is
  /// lost; and, after a ``fetch(_:)`` that could not read etcd, once the retry policy's delay has passed
  /// (a later failure's retry replaces it, a good read answers it).
  ///
  /// Everything it runs is a child of the calling task (the store's run loop): the watch, with its
  /// connection and its periodic check, and one timer for each retry due.
  public func follow(signal: @escaping @Sendable () -> Void) async {
    let watcher = EtcdWatcher(
      connection: connection, prefix: Array(prefix.utf8), state: state, retry: retry,
      checkInterval: checkInterval, signal: signal)
    let state = self.state
    let (id, retries) = state.follow()
    await withDiscardingTaskGroup { group in
      group.addTask { await watcher.run() }
      // Ends when the task is cancelled. A timer whose retry was replaced or answered meanwhile
      // signals nothing.
      for await due in retries {
        group.addTask {
          try? await Task.sleep(until: due.deadline, clock: .continuous)
          if !Task.isCancelled && state.takeRetry(due) { signal() }
        }
      }
      group.cancelAll()
    }
    state.unfollow(id)
  }

  /// What the layer's watch has done so far (for tests).
  package var watchStatus: EtcdWatchStatus { state.watchStatus }

  /// How many authentication tokens the layer has asked etcd for (for tests).
  package var authentications: Int { connection.authentications }

  /// What the layer knows of etcd now: its watch, the revision of its keys, when etcd last answered.
  public var status: EtcdStatus { state.status(authentications: connection.authentications) }

  /// The revision the layer's keys reflect (0: none read yet).
  package var revision: Int { state.revision }
}
