/// What an ``EtcdLayer`` knows of etcd now: whether its watch is open and on which member, the
/// revision its keys reflect, and when etcd last answered it. ``EtcdMetrics`` reports it; a health
/// check can read it directly (``EtcdLayer/status``).
public struct EtcdStatus: Sendable, Hashable {
  /// Whether a watch is open now (its keys follow etcd's changes as they happen).
  public var isWatching: Bool
  /// The client URL of the member the watch is open on (`nil`: none).
  public var member: String?
  /// The revision the layer's keys reflect: every change below the prefix up to it is applied (0:
  /// nothing read yet).
  public var revision: Int
  /// The newest revision of the whole cluster that an answer of etcd carried (writes to other
  /// prefixes raise it too).
  public var serverRevision: Int
  /// When etcd last showed the layer that its keys were current: a read, the watch's creation, a
  /// message of the watch, or a check of the watch's member that it answered (`nil`: never). With an
  /// open watch it comes at least every `checkInterval`; an older one means the layer may be serving
  /// stale values (a partition, a frozen member, or no member reachable).
  public var lastContact: ContinuousClock.Instant?
  /// How many times the layer read the whole prefix.
  public var reads: Int
  /// How many watches were opened (the first, then one per reconnection or failover).
  public var watchesOpened: Int
  /// How many watches etcd cancelled because their start revision was compacted away.
  public var compactions: Int
  /// How many authentication tokens the layer asked for (0 without ``EtcdCredentials``).
  public var authentications: Int

  /// How long ago ``lastContact`` was, at `now` (`nil`: never).
  public func sinceLastContact(at now: ContinuousClock.Instant = .now) -> Duration? {
    lastContact.map { now - $0 }
  }
}
