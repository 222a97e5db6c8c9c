import Strata

/// A reset of etcd's data, as a source sees it: the keys it holds came from one cluster at one
/// revision, and etcd now answers from another cluster, from an earlier revision (its data were wiped
/// or restored), or with the prefix empty where it held two keys or more. Unless the source follows resets, its
/// last good values stay, with an error that says which.
enum EtcdReset: Sendable, Equatable {
  /// A watch resumed on another cluster or past the server's revision: the next read judges it.
  case suspected
  /// Another cluster answered: its id is not the one the keys came from.
  case otherCluster(held: UInt64, heldRevision: Int, found: UInt64, foundRevision: Int)
  /// The server's revision went back (its data were wiped, or restored from an earlier backup).
  case historyLost(cluster: UInt64, held: Int, found: Int)
  /// The prefix is empty where it held two keys or more (deleting a prefix's only key is an ordinary
  /// change).
  case emptied(prefix: String, keys: Int, held: Int, found: Int)

  /// What the keys held came from: their cluster (0: not said), their revision (0: none read), and
  /// how many there are.
  struct Held {
    var cluster: UInt64
    var revision: Int
    var keys: Int
  }

  /// The reset a read answered with `header` and `keys` keys shows, or `nil` when it may be taken.
  /// `trustedWatch` is the revision after which an open watch has delivered every event (a read older
  /// than the keys is then a read made before the watch's last events, not a lost history);
  /// `previous`, the reset refused before: a lost history stays refused.
  static func judge(
    held: Held, trustedWatch: Int?, previous: EtcdReset?, found header: EtcdConnection.Header, keys: Int,
    prefix: String
  ) -> EtcdReset? {
    if case .historyLost(let cluster, let heldRevision, _) = previous {
      return .historyLost(cluster: cluster, held: heldRevision, found: header.revision)
    }
    guard held.revision > 0 || held.cluster != 0 else { return nil }
    if held.cluster != 0 && header.cluster != 0 && header.cluster != held.cluster {
      return .otherCluster(
        held: held.cluster, heldRevision: held.revision, found: header.cluster, foundRevision: header.revision
      )
    }
    if header.revision < held.revision && (trustedWatch.map { header.revision < $0 } ?? true) {
      return .historyLost(cluster: held.cluster, held: held.revision, found: header.revision)
    }
    if keys == 0 && held.keys > 1 {
      return .emptied(prefix: prefix, keys: held.keys, held: held.revision, found: header.revision)
    }
    return nil
  }

  /// The error a refused reset is reported with, at `path` (the source's document).
  func error(path: String) -> StrataError {
    let follow = "create the layer with followsReset: true to follow such a change"
    let message: String
    switch self {
    case .suspected:
      message = "etcd's data may have been reset; the source reads them again"
    case .otherCluster(let held, let heldRevision, let found, let foundRevision):
      message =
        "etcd answered from cluster \(Self.hex(found)) (revision \(foundRevision)), not from cluster "
        + "\(Self.hex(held)) whose values (revision \(heldRevision)) the source holds: the last good values "
        + "are kept until a member of cluster \(Self.hex(held)) answers again; if the new cluster is meant, "
        + "restart the program, or \(follow)"
    case .historyLost(let cluster, let held, let found):
      message =
        "etcd's revision went back from \(held) to \(found) (cluster \(Self.hex(cluster))): its data were "
        + "wiped or restored, and the changes since are lost; the last good values are kept until the "
        + "program restarts, or \(follow)"
    case .emptied(let prefix, let keys, let held, let found):
      message =
        "etcd's prefix \(prefix) is empty at revision \(found), where it held \(keys) key(s) at revision "
        + "\(held): the last good values are kept until keys come back below it, or \(follow)"
    }
    return StrataError(.invalidValue, message, path: path)
  }

  /// A cluster id as etcd's logs and `etcdctl` write it: hexadecimal.
  static func hex(_ id: UInt64) -> String { String(id, radix: 16) }
}
