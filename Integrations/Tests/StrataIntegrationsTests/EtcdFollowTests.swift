import Strata
import Testing

@testable import StrataEtcd

/// How an etcd layer's `follow` owns its tasks: the retry a failed fetch is owed is a timer inside
/// `follow`, and cancelling `follow` ends the watch and every timer. No server is needed: nothing
/// listens at the endpoint, so the watch never connects and never signals; every signal is a retry's.
@Suite struct EtcdFollowTests {
  /// An endpoint where nothing listens: a request fails at once.
  static let unreachable = "http://127.0.0.1:1"

  /// The signals `follow` gave, with the time each came.
  final class Signals: Sendable {
    let times = EtcdShared<[ContinuousClock.Instant]>([])
    func signal() {
      times.update { $0.append(.now) }
    }
    var count: Int { times.value.count }
  }

  @Test func aFailedFetchIsSignalledAgainAfterEachRetryDelayWhileTheLayerIsFollowed() async {
    let retry = EtcdRetry(initialDelay: .milliseconds(100), maximumDelay: .seconds(1), multiplier: 2)
    let layer = EtcdLayer(endpoints: [Self.unreachable], prefix: "/p/", retry: retry)
    let signals = Signals()
    await withDiscardingTaskGroup { group in
      group.addTask { await layer.follow(signal: signals.signal) }
      #expect(await etcdEventually { layer.state.followerCount == 1 })
      for failures in 1...3 {
        let failed = ContinuousClock.now
        let contents = await layer.fetch(LoadContext())
        #expect(contents.diagnostics.contains { $0.severity == .error && $0.error.code == .unreadable })
        #expect(await etcdEventually { signals.count == failures })
        let after = (signals.times.value.last ?? failed) - failed
        let shortest = retry.delay(afterFailures: failures) * (1 - retry.jitter)
        #expect(after >= shortest, "signalled \(after) after the failure")
      }
      group.cancelAll()
    }
    #expect(layer.state.followerCount == 0)
  }

  @Test func aLaterFailureReplacesTheRetryDueAndIsSignalledOnce() async {
    // Without jitter, so that the second due is surely later than the first.
    let retry = EtcdRetry(
      initialDelay: .milliseconds(100), maximumDelay: .seconds(1), multiplier: 2, jitter: 0)
    let layer = EtcdLayer(endpoints: [Self.unreachable], prefix: "/p/", retry: retry)
    let signals = Signals()
    await withDiscardingTaskGroup { group in
      group.addTask { await layer.follow(signal: signals.signal) }
      #expect(await etcdEventually { layer.state.followerCount == 1 })
      _ = await layer.fetch(LoadContext())  // due in 100 ms
      let second = ContinuousClock.now
      _ = await layer.fetch(LoadContext())  // replaces it: due in 200 ms
      #expect(await etcdEventually { signals.count == 1 })
      #expect(signals.times.value[0] - second >= .milliseconds(200))
      // The replaced timer's deadline has long passed: it signalled nothing.
      try? await Task.sleep(for: .milliseconds(300))
      #expect(signals.count == 1)
      group.cancelAll()
    }
  }

  @Test func aRetryDueBeforeTheLayerIsFollowedIsSignalledWhenItIs() async {
    let retry = EtcdRetry(initialDelay: .milliseconds(50))
    let layer = EtcdLayer(endpoints: [Self.unreachable], prefix: "/p/", retry: retry)
    _ = await layer.fetch(LoadContext())  // the store's first fetch comes before its run loop follows
    let signals = Signals()
    await withDiscardingTaskGroup { group in
      group.addTask { await layer.follow(signal: signals.signal) }
      #expect(await etcdEventually { signals.count == 1 })
      group.cancelAll()
    }
  }

  @Test func cancellingFollowEndsTheWatchAndEveryTimerPromptly() async {
    // Long delays: when cancelled, the watch waits to reconnect and a retry's timer is pending.
    let layer = EtcdLayer(
      endpoints: [Self.unreachable], prefix: "/p/", retry: EtcdRetry(initialDelay: .seconds(30)))
    _ = await layer.fetch(LoadContext())
    let signals = Signals()
    let cancelled = EtcdShared<ContinuousClock.Instant?>(nil)
    await withDiscardingTaskGroup { group in
      group.addTask { await layer.follow(signal: signals.signal) }
      #expect(await etcdEventually { layer.state.followerCount == 1 })
      _ = await layer.fetch(LoadContext())  // a second timer, replacing the first
      cancelled.update { $0 = .now }
      group.cancelAll()
    }
    let took = ContinuousClock.now - (cancelled.value ?? .now)
    #expect(took < .seconds(2), "follow returned \(took) after it was cancelled")
    #expect(signals.count == 0)
    #expect(layer.state.followerCount == 0)
  }
}
