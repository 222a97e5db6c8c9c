/// A user of an etcd cluster that has authentication on (as `etcdctl --user NAME:PASSWORD`).
///
/// The layer asks a member for a token (`/v3/auth/authenticate`) before its first request, sends it
/// with every request, and asks for a new one when etcd no longer takes it (it expired after etcd's
/// `--auth-token-ttl`, or the member restarted and forgot it). The password and the token never
/// appear in a message, an event or a description.
///
/// The user needs read permission on the layer's prefix
/// (`etcdctl role grant-permission ROLE --prefix=true read /config/myapp/`).
public struct EtcdCredentials: Sendable, Hashable, CustomStringConvertible, CustomReflectable {
  /// The user's name.
  public var user: String
  /// The user's password.
  public var password: String

  /// The user `user`, with its `password`.
  public init(user: String, password: String) {
    self.user = user
    self.password = password
  }

  /// `user 'NAME'` (the password is never shown).
  public var description: String { "user '\(user)'" }

  /// The user, and the password redacted (what `dump` shows).
  public var customMirror: Mirror { Mirror(self, children: ["user": user, "password": "<redacted>"]) }
}
