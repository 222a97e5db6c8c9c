import Synchronization

/// The client URLs of an etcd cluster's members and the one requests go to now: a request that finds
/// it unreachable, too slow, or without a leader moves on to the next (in the order given, wrapping
/// around), and the member that answers becomes the current one.
final class EtcdEndpoints: Sendable {
  /// `http://host:port` each, without a trailing slash, in the order given; never empty.
  let all: [String]
  private let current: Mutex<Int>

  /// The endpoints `urls` (an empty list is `http://127.0.0.1:2379`); a trailing slash is dropped.
  init(_ urls: [String]) {
    let cleaned = urls.map { $0.hasSuffix("/") ? String($0.dropLast()) : $0 }
    all = cleaned.isEmpty ? ["http://127.0.0.1:2379"] : cleaned
    current = Mutex(0)
  }

  /// The endpoint requests go to now.
  var endpoint: String { all[current.withLock { $0 }] }

  /// One round: every endpoint once, the current one first, then the others in order; without those
  /// in `skipping` (the member whose watch was just lost is tried again only in a later round).
  func round(skipping: Set<String> = []) -> [String] {
    let start = current.withLock { $0 }
    return (0..<all.count).map { all[(start + $0) % all.count] }.filter { !skipping.contains($0) }
  }

  /// `endpoint` answered: requests go to it from now on.
  func answered(_ endpoint: String) {
    guard let index = all.firstIndex(of: endpoint) else { return }
    current.withLock { $0 = index }
  }

  /// `endpoint` failed: when it is the current one, requests go to the next from now on (a failure
  /// another request already moved past changes nothing).
  func failed(_ endpoint: String) {
    current.withLock { index in
      if all[index] == endpoint { index = (index + 1) % all.count }
    }
  }

  /// The endpoints as a phrase for messages: `http://10.0.0.5:2379, http://10.0.0.6:2379`.
  var list: String { all.joined(separator: ", ") }
}
