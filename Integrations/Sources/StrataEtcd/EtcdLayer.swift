public import AsyncHTTPClient
import Glibc
import NIOCore
public import Strata

/// A layer read from etcd v3: every key below a prefix, as a tree, followed live by etcd's watch.
///
/// Keys below the prefix become paths (`/config/myapp/server/port` → `server.port`); each value is
/// read by the source's ``EtcdValueFormat``; every value's origin names the key and the revision that
/// last changed it: `etcd:/config/myapp/server/port@rev 1234`. The layer talks to etcd's HTTP/JSON
/// gateway (`/v3/kv/range`, `/v3/watch`) through an AsyncHTTPClient `HTTPClient`.
///
/// <!-- snippet: Integrations/Tests/StrataIntegrationsTests/DocSnippets/IntegrationSnippets.swift#EtcdLayer -->
/// ```swift
/// let etcd = EtcdLayer(endpoint: "http://10.0.0.5:2379", prefix: "/config/myapp/")
/// let store = SettingsStore(layers: StandardLayout(app: "myapp").layers + [etcd])
/// Task { await store.run() }  // reads the prefix, then follows the watch
/// ```
///
/// What happens when things go wrong:
/// - etcd cannot be reached (at start or later): the store runs on its other layers (and on the last
///   values read from etcd), an error names the endpoint (a `failed` event), and the layer tries again
///   with ``EtcdRetry``'s growing delays; when etcd answers, a `recovered` event and the new values.
/// - The connection drops: the watch resumes from the last revision it saw, so no change is missed.
/// - etcd stops answering but the connection stays open (a partition, a frozen server): a small read
///   every `checkInterval` notices, and the watch counts as lost.
/// - The watch's revision was compacted away: the layer reads the whole prefix again; the store
///   publishes only the keys that differ.
/// - The server lost its history (a new cluster at the same address): the layer reads it from scratch.
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
  /// How often, while the watch is open, the layer checks that etcd still answers.
  public let checkInterval: Duration
  let connection: EtcdConnection
  let state: EtcdSourceState

  /// Creates a source over the keys below `prefix`.
  /// - Parameters:
  ///   - endpoint: etcd's client URL (`http://127.0.0.1:2379`).
  ///   - prefix: the key prefix, usually ending with `/` (`/config/myapp/`).
  ///   - scope: where the layer sits in the stack.
  ///   - valueFormat: how each value is read (default: one string each).
  ///   - isSecret: whether every value is a secret (a prefix of credentials): redacted in dumps, as a
  ///     Kubernetes Secret volume's files are.
  ///   - client: the HTTP client (default ``sharedClient``). A client with a read timeout makes an
  ///     idle watch reconnect (from its last revision: nothing is missed) each time it passes; one
  ///     that retries connections (AsyncHTTPClient's default) makes a read of an unreachable etcd
  ///     wait for `requestTimeout`.
  ///   - retry: the delays between attempts to reach etcd.
  ///   - requestTimeout: how long one request may wait for etcd's answer.
  ///   - checkInterval: how often, while the watch is open, a small read checks that etcd still
  ///     answers (a partition or a frozen server leaves the watch's connection open and silent): one
  ///     that does not answer within `requestTimeout` counts as lost, with a `failed` event.
  public init(
    endpoint: String = "http://127.0.0.1:2379", prefix: String, scope: Scope = .system,
    valueFormat: EtcdValueFormat = .string, isSecret: Bool = false,
    client: HTTPClient = EtcdLayer.sharedClient,
    retry: EtcdRetry = EtcdRetry(),
    requestTimeout: Duration = .seconds(5), checkInterval: Duration = .seconds(30)
  ) {
    self.scope = scope
    self.prefix = prefix
    self.name = "etcd:" + prefix
    self.valueFormat = valueFormat
    self.retry = retry
    self.checkInterval = checkInterval
    self.connection = EtcdConnection(client: client, endpoint: endpoint, requestTimeout: requestTimeout)
    self.state = EtcdSourceState(
      tree: EtcdTree(prefix: Array(prefix.utf8), format: valueFormat), isSecret: isSecret)
  }

  /// etcd's client URL, as given.
  public var endpoint: String { connection.endpoint }

  /// `true`: the layer reads etcd in ``fetch(_:)``.
  public var loadsAsynchronously: Bool { true }

  /// The last contents read, without waiting (nothing before the first fetch).
  public func load(_ context: LoadContext) -> LayerContents {
    state.contents
  }

  /// Reads the prefix from etcd; when the layer's watch keeps its keys current and has signalled a
  /// change, builds them without asking etcd. When etcd cannot be reached, the last good contents,
  /// with an error naming the endpoint, and a retry is due: a store that runs the layer's
  /// ``follow(_:signal:)`` is signalled to fetch again after ``EtcdRetry``'s delay.
  public func fetch(_ context: LoadContext) async -> LayerContents {
    if let current = state.contentsFromWatch(options: context.options) { return current }
    do {
      let (revision, entries) = try await connection.range(prefix: Array(prefix.utf8))
      return state.read(entries, revision: revision, options: context.options)
    } catch {
      if Task.isCancelled { return state.contents }
      let message =
        "etcd at \(connection.endpoint) cannot be read (\(Self.describe(error))); "
        + "the last good values are kept, and the source tries again"
      return state.failed(StrataError(.unreadable, message, path: state.documentPath), retry: retry)
    }
  }

  /// Follows etcd until the task is cancelled, then returns promptly: signals after each
  /// (re)connection of etcd's watch, once per batch of changes below the prefix, and when the watch is
  /// lost; and, after a ``fetch(_:)`` that could not read etcd, once the retry policy's delay has passed
  /// (a later failure's retry replaces it, a good read answers it).
  ///
  /// Everything it runs is a child of the calling task (the store's run loop): the watch, with its
  /// connection and its periodic check, and one timer for each retry due.
  public func follow(_ watch: LayerWatch, signal: @escaping @Sendable (LayerChange) -> Void) async {
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
          if !Task.isCancelled && state.takeRetry(due) { signal(.changed) }
        }
      }
      group.cancelAll()
    }
    state.unfollow(id)
  }

  /// What the layer's watch has done so far (for tests).
  package var watchStatus: EtcdWatchStatus { state.watchStatus }

  /// The revision the layer's keys reflect (0: none read yet).
  package var revision: Int { state.revision }

  /// A short description of a failed request.
  static func describe(_ error: any Error) -> String {
    if let error = error as? IOError, let reason = strerror(error.errnoCode) {
      return String(cString: reason)
    }
    let text = "\(error)"
    return text.count > 300 ? String(text.prefix(300)) + "…" : text
  }
}
