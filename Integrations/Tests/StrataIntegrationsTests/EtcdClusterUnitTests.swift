import AsyncHTTPClient
import Foundation
import Strata
import Testing

@testable import StrataEtcd

/// The parts of the cluster handling that need no server: the rotation of endpoints, the judging of
/// a reset, and the watch's cancel reason.
@Suite struct EtcdClusterUnitTests {
  @Test func aFailedEndpointIsLeftForTheNextAndTheOneThatAnswersBecomesCurrent() {
    let endpoints = EtcdEndpoints(["http://a:2379/", "http://b:2379", "http://c:2379"])
    #expect(endpoints.all == ["http://a:2379", "http://b:2379", "http://c:2379"])
    #expect(endpoints.round() == endpoints.all)
    endpoints.failed("http://a:2379")
    #expect(endpoints.endpoint == "http://b:2379")
    #expect(endpoints.round() == ["http://b:2379", "http://c:2379", "http://a:2379"])
    // A failure another request already moved past changes nothing.
    endpoints.failed("http://a:2379")
    #expect(endpoints.endpoint == "http://b:2379")
    #expect(endpoints.round(skipping: ["http://b:2379"]) == ["http://c:2379", "http://a:2379"])
    endpoints.failed("http://b:2379")
    endpoints.failed("http://c:2379")
    #expect(endpoints.endpoint == "http://a:2379")  // wraps around
    endpoints.answered("http://c:2379")
    #expect(endpoints.endpoint == "http://c:2379")
    #expect(EtcdEndpoints([]).all == ["http://127.0.0.1:2379"])
  }

  @Test func aReadThatReachesNoMemberNamesEachEndpointAndWhy() async {
    let layer = EtcdLayer(endpoints: ["http://127.0.0.1:1", "http://127.0.0.1:2"], prefix: "/p/")
    let contents = await layer.fetch(LoadContext())
    let error = contents.diagnostics.first { $0.severity == .error }?.error
    #expect(error?.code == .unreadable)
    #expect(error?.message.contains("http://127.0.0.1:1: ") == true, "\(String(describing: error))")
    #expect(error?.message.contains("http://127.0.0.1:2: ") == true, "\(String(describing: error))")
    #expect(layer.endpoints == ["http://127.0.0.1:1", "http://127.0.0.1:2"])
  }

  @Test func aResetIsAnotherClusterARevisionGoneBackOrAPrefixEmptied() {
    let held = EtcdReset.Held(cluster: 0xabc, revision: 100, keys: 3)
    func judge(
      _ cluster: UInt64, _ revision: Int, keys: Int = 3, watch: Int? = nil, previous: EtcdReset? = nil
    )
      -> EtcdReset?
    {
      EtcdReset.judge(
        held: held, trustedWatch: watch, previous: previous,
        found: EtcdConnection.Header(revision: revision, cluster: cluster), keys: keys, prefix: "/p/")
    }
    #expect(judge(0xabc, 120) == nil)
    #expect(
      judge(0xdef, 120) == .otherCluster(held: 0xabc, heldRevision: 100, found: 0xdef, foundRevision: 120))
    #expect(judge(0xabc, 7) == .historyLost(cluster: 0xabc, held: 100, found: 7))
    // A read made before the open watch's last events is older, not a lost history.
    #expect(judge(0xabc, 90, watch: 80) == nil)
    #expect(judge(0xabc, 70, watch: 80) == .historyLost(cluster: 0xabc, held: 100, found: 70))
    #expect(judge(0xabc, 120, keys: 0) == .emptied(prefix: "/p/", keys: 3, held: 100, found: 120))
    // A prefix's only key deleted is an ordinary change.
    #expect(
      EtcdReset.judge(
        held: .init(cluster: 0xabc, revision: 100, keys: 1), trustedWatch: nil, previous: nil,
        found: .init(revision: 101, cluster: 0xabc), keys: 0, prefix: "/p/") == nil)
    // Nothing held yet: anything is taken. A lost history stays refused.
    #expect(
      EtcdReset.judge(
        held: .init(cluster: 0, revision: 0, keys: 0), trustedWatch: nil, previous: nil,
        found: .init(revision: 1, cluster: 0xdef), keys: 0, prefix: "/p/") == nil)
    #expect(
      judge(0xabc, 500, previous: .historyLost(cluster: 0xabc, held: 100, found: 7))
        == .historyLost(cluster: 0xabc, held: 100, found: 500))
    // The errors name both clusters, or both revisions, and the way out.
    let other = EtcdReset.otherCluster(held: 0xabc, heldRevision: 100, found: 0xdef, foundRevision: 120)
    let message = other.error(path: "etcd:/p/").message
    #expect(message.contains("abc") && message.contains("def") && message.contains("followsReset: true"))
    #expect(
      EtcdReset.historyLost(cluster: 0xabc, held: 100, found: 7).error(path: "").message.contains(
        "from 100 to 7"))
  }

  @Test func aCancelledWatchSaysWhyInItsFailure() throws {
    let state = EtcdSourceState(tree: EtcdTree(prefix: Array("/p/".utf8), format: .string), isSecret: false)
    let watcher = EtcdWatcher(
      connection: EtcdConnection(
        client: .shared, endpoint: "http://127.0.0.1:1", requestTimeout: .seconds(1)),
      prefix: Array("/p/".utf8), state: state, retry: EtcdRetry(), checkInterval: .seconds(1),
      signal: {})
    let message = try JSONDecoder().decode(
      EtcdWire.WatchMessage.self,
      from: Data(#"{"result":{"canceled":true,"cancel_reason":"etcdserver: permission denied"}}"#.utf8))
    let outcome = try watcher.handle(message, start: nil, endpoint: "http://127.0.0.1:1")
    guard case .lost(let endpoint, let reason) = outcome else {
      Issue.record("not a lost watch: \(String(describing: outcome))")
      return
    }
    #expect(endpoint == "http://127.0.0.1:1")
    #expect(reason == "the server cancelled the watch: etcdserver: permission denied")
  }
}
