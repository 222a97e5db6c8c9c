import Strata
import StrataEtcd
import Testing

/// The setting the latency test follows.
struct EtcdLatencySettings: SettingsGroup {
  @Setting var x = 0
}

extension EtcdTests {
  /// Put → typed stream: each put (over HTTP) is awaited until the setting's `changes` stream yields
  /// its value. Asserts only that every value arrives, in order; prints the figures.
  /// Run twice: etcd's data on disk (each put waits for an fsync), then in memory (`/dev/shm`).
  @Test(arguments: [false, true])
  func putToTypedStreamLatency(inMemory: Bool) async throws {
    let puts = 500
    let server = try await EtcdServerProcess.started(inMemory: inMemory)
    defer { server.shutdown() }
    let etcd = server.connection
    let prefix = etcdTestPrefix("latency")
    try await etcd.put(prefix + "bench/x", "0")
    let layer = EtcdLayer(endpoints: [server.endpoint], prefix: prefix, retry: Self.quickRetry)
    let running = EtcdRunningStore(SettingsStore(layers: [layer]))
    defer { running.cancel() }
    #expect(await running.waitUntilReady())
    #expect(await etcdEventually { layer.watchStatus.isConnected })
    let settings = EtcdLatencySettings(store: running.store, section: "bench")
    #expect(settings.x == 0)

    let arrivals = EtcdShared<[(value: Int, at: ContinuousClock.Instant)]>([])
    let stream = settings.$x.changes
    let listening = Task {
      for await value in stream { arrivals.update { $0.append((value, ContinuousClock.now)) } }
    }
    defer { listening.cancel() }

    var latencies: [Duration] = []
    var putTimes: [Duration] = []
    for value in 1...puts {
      let sent = ContinuousClock.now
      try await etcd.put(prefix + "bench/x", String(value))
      putTimes.append(ContinuousClock.now - sent)
      let arrived = await etcdEventually(timeout: .seconds(30)) { arrivals.value.last?.value == value }
      #expect(arrived, "value \(value) did not reach the stream")
      guard arrived, let at = arrivals.value.last?.at else { break }
      latencies.append(at - sent)
    }
    #expect(latencies.count == puts)
    #expect(arrivals.value.map(\.value) == Array(1...latencies.count))
    let sorted = latencies.sorted()
    func percentile(_ p: Double) -> Duration { sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))] }
    func ms(_ d: Duration) -> String {
      let (seconds, attoseconds) = d.components
      let value = Double(seconds) * 1000 + Double(attoseconds) / 1e15
      return String(Int((value * 100).rounded())).withDecimalPoint
    }
    var reads: [Duration] = []
    for _ in 0..<100 {
      let began = ContinuousClock.now
      _ = try await EtcdConnection(
        client: EtcdLayer.sharedClient, endpoint: server.endpoint, requestTimeout: .seconds(10)
      ).range(prefix: Array(prefix.utf8))
      reads.append(ContinuousClock.now - began)
    }
    reads.sort()
    print(
      "  a range read of the prefix (what a fetch costs when no watch keeps the keys current): p50 \(ms(reads[50])) ms"
    )
    if !sorted.isEmpty {
      print(
        "etcd put → typed stream over \(sorted.count) puts (data \(inMemory ? "in memory" : "on disk")): p50 \(ms(percentile(0.5))) ms, "
          + "p99 \(ms(percentile(0.99))) ms, max \(ms(sorted.last!)) ms")
      let putsSorted = putTimes.sorted()
      print(
        "  of which the put's own HTTP round trip (etcd's commit): p50 "
          + "\(ms(putsSorted[putsSorted.count / 2])) ms, p99 \(ms(putsSorted[putsSorted.count * 99 / 100])) ms"
      )
    }
    await running.stop()
  }
}

extension String {
  /// Hundredths as text with two decimals: "123" → "1.23".
  fileprivate var withDecimalPoint: String {
    let padded = count < 3 ? String(repeating: "0", count: 3 - count) + self : self
    return padded.dropLast(2) + "." + padded.suffix(2)
  }
}
