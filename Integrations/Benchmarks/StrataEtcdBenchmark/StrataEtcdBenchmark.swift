import AsyncHTTPClient
import CMallocInfo
import Foundation
import Strata
import StrataEtcd
import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// The setting the latency rows follow: `app.x`, the key `/bench/app/x`.
struct BenchSettings: SettingsGroup {
  @Setting var x = 0
}

/// Strata's etcd source beside `etcdctl` on one real etcd server, in one run, with 10,000 keys below
/// the prefix: put → seen (`etcdctl watch --prefix` printing the value; a settings group's `changes`
/// stream yielding it), start-up (`etcdctl get --prefix`; a store's first load until it is ready),
/// and the memory a store holds per key; the first two for each ``EtcdTransport`` (the gateway, gRPC).
/// Prints one table per server: data in memory, then on disk.
///
///     swift build -c release --package-path Integrations --product strata-etcd-bench
///     Integrations/.build/release/strata-etcd-bench [keys] [puts]
@main struct StrataEtcdBenchmark {
  static let prefix = "/bench/"
  static let key = "/bench/app/x"

  static func main() async throws {
    strata_bench_single_arena()
    let arguments = CommandLine.arguments.dropFirst().compactMap { Int($0) }
    let keys = arguments.first ?? 10_000
    let puts = arguments.dropFirst().first ?? 300
    guard let etcd = which("etcd"), let etcdctl = which("etcdctl") else {
      throw BenchError("etcd and etcdctl must be on PATH (apt-get install etcd-server etcd-client)")
    }
    let environment = ProcessInfo.processInfo.environment
    if let endpoint = environment["STRATA_BENCH_PROFILE_ENDPOINT"] {
      // Store start-ups against a server already loaded, to sample with a profiler (perf, gdb).
      let transport: EtcdTransport =
        environment["STRATA_BENCH_PROFILE_TRANSPORT"] == "grpc" ? .grpc : .gateway
      let rounds = environment["STRATA_BENCH_PROFILE_ROUNDS"].flatMap { Int($0) } ?? 1
      var fetches: [Duration] = []
      var startUps: [Duration] = []
      for _ in 0..<rounds {
        let layer = EtcdLayer(endpoints: [endpoint], prefix: prefix, transport: transport)
        let began = ContinuousClock.now
        _ = await layer.fetch(LoadContext())
        fetches.append(ContinuousClock.now - began)
        let running = SettingsStore(
          layers: [EtcdLayer(endpoints: [endpoint], prefix: prefix, transport: transport)])
        let events = environment["STRATA_BENCH_PROFILE_LISTEN"] != nil ? running.events : nil
        let listener = Task {
          guard let events else { return }
          for await _ in events {}
        }
        defer { listener.cancel() }
        let ready = Mutex<ContinuousClock.Instant?>(nil)
        let started = ContinuousClock.now
        let task = Task { await running.run(onReady: { ready.withLock { $0 = .now } }) }
        while ready.withLock({ $0 }) == nil { try await Task.sleep(for: .microseconds(100)) }
        startUps.append(ready.withLock { $0 }! - started)
        task.cancel()
        await task.value
        running.shutdown()
      }
      print(
        "\(transport), \(rounds) rounds: the layer's fetch p50 \(ms(percentile(fetches, 0.5))), "
          + "a running store's start-up p50 \(ms(percentile(startUps, 0.5)))")
      return
    }
    for inMemory in [true, false] {
      let server = try await BenchServer(etcd: etcd, inMemory: inMemory)
      defer { server.shutdown() }
      try await load(keys, into: server)
      print(
        "\n\(keys) keys below \(prefix) + \(key), data \(inMemory ? "in memory (/dev/shm)" : "on disk (/tmp)")"
      )
      print(row("", "etcdctl", "Strata", "ratio"))
      for transport in [EtcdTransport.gateway, .grpc] {
        let (watched, seen) = try await latencies(server, etcdctl: etcdctl, puts: puts, transport: transport)
        for p in [0.5, 0.9] {
          let (a, b) = (percentile(watched, p), percentile(seen, p))
          let label = transport == .grpc ? "put → seen over gRPC p" : "put → seen p"
          print(row("\(label)\(Int(p * 100)) (\(puts) puts)", ms(a), ms(b), ratio(b, a)))
        }
      }
      let (read, startUp, grpcStartUp, listened) = try await startUps(server, etcdctl: etcdctl, runs: 7)
      print(row("start-up, median of 7", ms(read), ms(startUp), ratio(startUp, read)))
      print(row("start-up over gRPC, median of 7", ms(read), ms(grpcStartUp), ratio(grpcStartUp, read)))
      print(row("  the same, events listened to", ms(read), ms(listened), ratio(listened, read)))
      if let curl = which("curl") {
        // The floor of any client of the HTTP/JSON gateway: etcd's own time to answer the range.
        let gateway = try await gatewayRange(server, curl: curl, runs: 7)
        print(row("  the gateway's range alone (curl)", ms(gateway), "", ratio(gateway, read)))
      }
      let (range, fetch) = try await startUpParts(server, transport: .gateway, runs: 7)
      print(row("  of which: the range read", "", ms(range), ""))
      print(row("  of which: the layer's fetch", "", ms(fetch), ""))
      let (grpcRange, grpcFetch) = try await startUpParts(server, transport: .grpc, runs: 7)
      print(row("  over gRPC: the range read", "", ms(grpcRange), ""))
      print(row("  over gRPC: the layer's fetch", "", ms(grpcFetch), ""))
      let perKey = await bytesPerKey(server, keys: keys + 1)
      print(row("malloc'd bytes per key", "", "\(perKey) B", ""))
    }
  }

  /// Puts `count` keys (`/bench/svc000/key000` …, 100 per table) and `app/x`, 64 at a time.
  static func load(_ count: Int, into server: BenchServer) async throws {
    let etcd = EtcdConnection(client: .shared, endpoint: server.endpoint, requestTimeout: .seconds(30))
    try await etcd.put(key, "0")
    try await withThrowingTaskGroup(of: Void.self) { group in
      for index in 0..<count {
        if index >= 64 { try await group.next() }
        group.addTask {
          let name = "svc\(pad(index / 100, 3))/key\(pad(index % 100, 2))"
          try await etcd.put(prefix + name, "setting-value-\(pad(index, 6))")
        }
      }
      try await group.waitForAll()
    }
  }

  /// Each put's latency until `etcdctl watch --prefix` printed it, and until the typed stream
  /// yielded it, the same put seen by both at once.
  static func latencies(
    _ server: BenchServer, etcdctl: String, puts: Int, transport: EtcdTransport
  ) async throws -> (watched: [Duration], seen: [Duration]) {
    let etcd = EtcdConnection(client: .shared, endpoint: server.endpoint, requestTimeout: .seconds(30))
    let layer = EtcdLayer(endpoints: [server.endpoint], prefix: prefix, transport: transport)
    let store = SettingsStore(layers: [layer])
    let ready = Mutex(false)
    let running = Task { await store.run(onReady: { ready.withLock { $0 = true } }) }
    defer {
      running.cancel()
      store.shutdown()
    }
    guard await eventually({ ready.withLock { $0 } && layer.watchStatus.isConnected }) else {
      throw BenchError("the store did not get ready")
    }
    let settings = BenchSettings(store: store, section: "app")
    let arrivals = Mutex<[Int: ContinuousClock.Instant]>([:])
    let stream = settings.$x.changes
    let listening = Task {
      for await value in stream {
        let at = ContinuousClock.now
        arrivals.withLock { $0[value] = at }
      }
    }
    defer { listening.cancel() }
    let watch = try EtcdctlWatch(etcdctl: etcdctl, endpoint: server.endpoint, prefix: prefix, key: key)
    defer { watch.stop() }
    var watched: [Duration] = []
    var seen: [Duration] = []
    // Warms up until etcdctl's watch prints (it starts watching some time after it starts).
    var index = 0
    var warm = 0
    while warm < 20 {
      index += 1
      try await etcd.put(key, String(index))
      let both = await eventually(within: .seconds(2)) {
        watch.printedAt(index) != nil && arrivals.withLock { $0[index] } != nil
      }
      warm = both ? warm + 1 : 0
      guard index < 200 else { throw BenchError("etcdctl watch and the store did not both see the puts") }
    }
    for _ in 0..<puts {
      index += 1
      let sent = ContinuousClock.now
      try await etcd.put(key, String(index))
      guard
        await eventually({ watch.printedAt(index) != nil && arrivals.withLock { $0[index] } != nil }),
        let printed = watch.printedAt(index), let arrived = arrivals.withLock({ $0[index] })
      else { throw BenchError("put \(index) was not seen by both within 30 s") }
      watched.append(printed - sent)
      seen.append(arrived - sent)
    }
    return (watched, seen)
  }

  /// The median time of `etcdctl get --prefix` (a process that reads every key and prints it), and
  /// of a new store's first load of the prefix until it is ready, through the gateway and through
  /// gRPC (the three taken in turn in each run).
  static func startUps(_ server: BenchServer, etcdctl: String, runs: Int) async throws -> (
    read: Duration, startUp: Duration, grpcStartUp: Duration, grpcListenedStartUp: Duration
  ) {
    var reads: [Duration] = []
    var startUps: [Duration] = []
    var grpcStartUps: [Duration] = []
    var grpcListenedStartUps: [Duration] = []
    for _ in 0..<runs {
      let process = Process()
      process.executableURL = URL(fileURLWithPath: etcdctl)
      process.arguments = ["--endpoints=\(server.endpoint)", "get", "--prefix", prefix]
      process.environment = ["ETCDCTL_API": "3"]
      process.standardOutput = FileHandle.nullDevice
      let began = ContinuousClock.now
      try process.run()
      process.waitUntilExit()
      reads.append(ContinuousClock.now - began)
      startUps.append(try await storeStartUp(server, transport: .gateway))
      grpcStartUps.append(try await storeStartUp(server, transport: .grpc))
      grpcListenedStartUps.append(try await storeStartUp(server, transport: .grpc, listened: true))
    }
    return (
      percentile(reads, 0.5), percentile(startUps, 0.5), percentile(grpcStartUps, 0.5),
      percentile(grpcListenedStartUps, 0.5)
    )
  }

  /// The time from a new store's `run()` over an etcd layer (reading through `transport`) until it is
  /// ready with the prefix's keys; `listened`: with a task reading the store's events (as a logging
  /// bridge does), which are then gathered (the first read's `reloaded` event names every key).
  static func storeStartUp(
    _ server: BenchServer, transport: EtcdTransport, listened: Bool = false
  ) async throws -> Duration {
    let store = SettingsStore(
      layers: [EtcdLayer(endpoints: [server.endpoint], prefix: prefix, transport: transport)])
    let events = listened ? store.events : nil
    let listener = Task {
      guard let events else { return }
      for await _ in events {}
    }
    defer { listener.cancel() }
    let readyAt = Mutex<ContinuousClock.Instant?>(nil)
    let started = ContinuousClock.now
    let running = Task { await store.run(onReady: { readyAt.withLock { $0 = .now } }) }
    let ready = await eventually { readyAt.withLock { $0 } != nil }
    running.cancel()
    await running.value
    store.shutdown()
    guard ready, let at = readyAt.withLock({ $0 }) else { throw BenchError("the store did not get ready") }
    guard store.snapshot.root.value(at: "svc000.key00") != nil else {
      throw BenchError("the store was ready without the keys (\(transport))")
    }
    return at - started
  }

  /// The median time of `curl` posting the prefix's range request to the gateway, its answer to
  /// /dev/null: what etcd itself takes to answer a client of the HTTP/JSON gateway.
  static func gatewayRange(_ server: BenchServer, curl: String, runs: Int) async throws -> Duration {
    let bytes = Array(prefix.utf8)  // ends with "/": the range ends where "/" + 1 ("0") begins
    let end = bytes.dropLast() + [bytes.last! + 1]
    let body =
      #"{"key":"\#(Data(bytes).base64EncodedString())","range_end":"\#(Data(end).base64EncodedString())"}"#
    var times: [Duration] = []
    for _ in 0..<runs {
      let process = Process()
      process.executableURL = URL(fileURLWithPath: curl)
      process.arguments = ["-s", "-o", "/dev/null", "-d", body, server.endpoint + "/v3/kv/range"]
      let began = ContinuousClock.now
      try process.run()
      process.waitUntilExit()
      times.append(ContinuousClock.now - began)
    }
    return percentile(times, 0.5)
  }

  /// The median time of the range read alone through `transport` (the request and its decoding), and
  /// of a new layer's first fetch (the read and the tree), without a store.
  static func startUpParts(_ server: BenchServer, transport: EtcdTransport, runs: Int) async throws -> (
    range: Duration, fetch: Duration
  ) {
    let etcd = EtcdConnection(
      client: EtcdLayer.sharedClient, endpoint: server.endpoint, requestTimeout: .seconds(30),
      transport: transport)
    var ranges: [Duration] = []
    var fetches: [Duration] = []
    for _ in 0..<runs {
      var began = ContinuousClock.now
      _ = try await etcd.range(prefix: Array(prefix.utf8))
      ranges.append(ContinuousClock.now - began)
      let layer = EtcdLayer(endpoints: [server.endpoint], prefix: prefix, transport: transport)
      began = ContinuousClock.now
      _ = await layer.fetch(LoadContext())
      fetches.append(ContinuousClock.now - began)
    }
    return (percentile(ranges, 0.5), percentile(fetches, 0.5))
  }

  /// The bytes a running store over the prefix holds per key: the bytes malloc'd (and not freed) while
  /// a store with `keys` keys runs, less those of a store over an empty prefix, over `keys`.
  static func bytesPerKey(_ server: BenchServer, keys: Int) async -> Int {
    func held(prefix: String) async -> Int {
      let before = Int(strata_bench_allocated_bytes())
      let store = SettingsStore(layers: [EtcdLayer(endpoints: [server.endpoint], prefix: prefix)])
      let ready = Mutex(false)
      let running = Task { await store.run(onReady: { ready.withLock { $0 = true } }) }
      _ = await eventually { ready.withLock { $0 } }
      try? await Task.sleep(for: .milliseconds(200))
      let after = Int(strata_bench_allocated_bytes())
      running.cancel()
      await running.value
      store.shutdown()
      return after - before
    }
    _ = await held(prefix: "/empty/")  // warms up what the first store makes once
    let empty = await held(prefix: "/empty/")
    let full = await held(prefix: prefix)
    return (full - empty) / keys
  }

  /// Waits (up to `limit`) until `condition` holds; polls every 100 µs.
  static func eventually(within limit: Duration = .seconds(30), _ condition: () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + limit
    while !condition() {
      if ContinuousClock.now >= deadline { return false }
      try? await Task.sleep(for: .microseconds(100))
    }
    return true
  }

  static func which(_ name: String) -> String? {
    let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
    return path.split(separator: ":").map { "\($0)/\(name)" }.first { access($0, X_OK) == 0 }
  }

  static func percentile(_ values: [Duration], _ p: Double) -> Duration {
    let sorted = values.sorted()
    return sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))]
  }

  static func milliseconds(_ duration: Duration) -> Double {
    let (seconds, attoseconds) = duration.components
    return Double(seconds) * 1000 + Double(attoseconds) / 1e15
  }

  static func ms(_ duration: Duration) -> String {
    let value = milliseconds(duration)
    return value < 10 ? String(format: "%.2f ms", value) : String(format: "%.0f ms", value)
  }

  static func ratio(_ mine: Duration, _ theirs: Duration) -> String {
    String(format: "%.2f×", milliseconds(mine) / milliseconds(theirs))
  }

  static func row(_ what: String, _ etcdctl: String, _ strata: String, _ ratio: String) -> String {
    func fit(_ text: String, _ width: Int) -> String {
      text + String(repeating: " ", count: max(1, width - text.count))
    }
    return fit(what, 34) + fit(etcdctl, 12) + fit(strata, 12) + ratio
  }
}

/// `value` in decimal, with leading zeros to `width` digits.
func pad(_ value: Int, _ width: Int) -> String {
  let text = String(value)
  return String(repeating: "0", count: max(0, width - text.count)) + text
}
