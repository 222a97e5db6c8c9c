import Configuration
import Strata
import SystemPackage

/// The file edited by the reload rows.
private func serverJSON(port: Int, name: String) -> String {
  #"{"server": {"port": \#(port), "name": "\#(name)"}, "log": {"level": "info"}}"# + "\n"
}

/// A value received by a watcher, and when.
private struct Delivery<Value: Sendable>: Sendable {
  var value: Value
  var at: ContinuousClock.Instant
}

/// Waits for the first delivery equal to `expected`, up to `timeout`; returns when it arrived. The
/// stream also receives a sentinel value every 500 ms (``tickEvery(_:_:into:)``), so the deadline is
/// checked even when the watcher stays silent.
private func awaitDelivery<Value: Equatable & Sendable>(
  _ iterator: inout AsyncStream<Delivery<Value>>.Iterator, _ expected: Value, timeout: Duration
) async -> ContinuousClock.Instant? {
  let deadline = ContinuousClock.now + timeout
  while ContinuousClock.now < deadline {
    guard let delivery = await iterator.next() else { return nil }
    if delivery.value == expected { return delivery.at }
  }
  return nil
}

/// Yields `value` (a sentinel no edit produces) into `continuation` every `interval`, until cancelled.
private func tickEvery<Value: Sendable>(
  _ interval: Duration, _ value: Value, into continuation: AsyncStream<Delivery<Value>>.Continuation
) -> Task<Void, Never> {
  Task.detached {
    while !Task.isCancelled {
      try? await Task.sleep(for: interval)
      continuation.yield(Delivery(value: value, at: .now))
    }
  }
}

/// Row 3: rename() of an edited file → the new value delivered to a typed watcher.
func reloadRows(_ options: Options) async throws -> [Row] {
  let directory = makeTemporaryDirectory("reload")
  defer { removeTree(directory) }
  var rows: [Row] = []

  // Ours: a SettingsStore over one JSON file, watching (inotify), and `$port.changes`.
  let edits = options.quick ? 200 : 1_000
  printError("reload: ours, \(edits) edits")
  let oursPath = "\(directory)/ours.json"
  writeFile(oursPath, serverJSON(port: 10_000, name: "start"))
  let store = SettingsStore(layers: [FileLayer(scope: .user, files: [oursPath])])
  let server = ServerSettings(store: store)
  let (ready, readyContinuation) = AsyncStream<Void>.makeStream()
  let watching = Task.detached { await store.run(onReady: { readyContinuation.yield() }) }
  for await _ in ready { break }
  let (oursDeliveries, oursContinuation) = AsyncStream<Delivery<Int>>.makeStream()
  let changes = server.$port.changes
  let oursWatcher = Task.detached {
    for await port in changes { oursContinuation.yield(Delivery(value: port, at: .now)) }
  }
  let oursTicks = tickEvery(.milliseconds(500), -1, into: oursContinuation)
  var oursIterator = oursDeliveries.makeAsyncIterator()
  var oursLatencies: [Double] = []
  var oursMissed = 0
  for edit in 1...edits {
    let port = 10_000 + edit
    let start = replaceFile(oursPath, serverJSON(port: port, name: "start"))
    if let arrived = await awaitDelivery(&oursIterator, port, timeout: .seconds(2)) {
      oursLatencies.append((arrived - start).nanoseconds / 1e6)
    } else {
      oursMissed += 1
    }
  }
  oursTicks.cancel()
  watching.cancel()
  await watching.value
  oursWatcher.cancel()
  store.shutdown()

  // swift-configuration: ReloadingFileProvider<JSONSnapshot> polling every second (its default is
  // 15 s), watched with `watchString(forKey:)` (see the Int test below for `watchInt`).
  let theirsEdits = options.quick ? 5 : 20
  printError("reload: swift-configuration, \(theirsEdits) edits at a 1 s poll")
  let theirsPath = "\(directory)/theirs.json"
  writeFile(theirsPath, serverJSON(port: 20_000, name: "edit-0"))
  let provider = try await ReloadingFileProvider<JSONSnapshot>(
    filePath: FilePath(theirsPath), pollInterval: .seconds(1))
  let reader = ConfigReader(provider: provider)
  let polling = Task.detached { try await provider.run() }
  let (theirsDeliveries, theirsContinuation) = AsyncStream<Delivery<String>>.makeStream()
  let stringWatcher = Task.detached {
    try await reader.watchString(forKey: "server.name") { updates in
      for await name in updates { theirsContinuation.yield(Delivery(value: name ?? "<nil>", at: .now)) }
    }
  }
  let (intDeliveries, intContinuation) = AsyncStream<Delivery<Int>>.makeStream()
  let intWatcher = Task.detached {
    try await reader.watchInt(forKey: "server.port") { updates in
      for await port in updates { intContinuation.yield(Delivery(value: port ?? -2, at: .now)) }
    }
  }
  let theirsTicks = tickEvery(.milliseconds(500), "<tick>", into: theirsContinuation)
  let intTicks = tickEvery(.milliseconds(500), -1, into: intContinuation)
  var theirsIterator = theirsDeliveries.makeAsyncIterator()
  var intIterator = intDeliveries.makeAsyncIterator()
  // Both watchers first deliver the current value.
  _ = await awaitDelivery(&theirsIterator, "edit-0", timeout: .seconds(5))
  let intInitial = await awaitDelivery(&intIterator, 20_000, timeout: .seconds(5)) != nil
  var theirsLatencies: [Double] = []
  var theirsMissed = 0
  var random = SplitMix64(seed: 42)
  for edit in 1...theirsEdits {
    // A pseudo-random pause, so that edits do not lock step with the poll timer.
    try await Task.sleep(for: .milliseconds(Int(random.next() % 1_000)))
    let name = "edit-\(edit)"
    let start = replaceFile(theirsPath, serverJSON(port: 20_000, name: name))
    if let arrived = await awaitDelivery(&theirsIterator, name, timeout: .seconds(5)) {
      theirsLatencies.append((arrived - start).nanoseconds / 1e6)
    } else {
      theirsMissed += 1
    }
  }

  // Does an integer change in the JSON file reach swift-configuration's typed watcher?
  printError("reload: swift-configuration watchInt, one Int edit, waiting 3.5 s (3 polls)")
  let intStart = replaceFile(theirsPath, serverJSON(port: 20_001, name: "edit-\(theirsEdits)"))
  let intArrived = await awaitDelivery(&intIterator, 20_001, timeout: .milliseconds(3_500))
  let intReadAfter = reader.int(forKey: "server.port")
  theirsTicks.cancel()
  intTicks.cancel()
  polling.cancel()
  stringWatcher.cancel()
  intWatcher.cancel()

  func latencyCells(_ latencies: [Double], unit: String = "ms") -> String {
    guard !latencies.isEmpty else { return "none delivered" }
    let decimals = percentile(latencies, 50) < 10 ? 3 : 0
    return "p50 \(format(percentile(latencies, 50), decimals: decimals)) / p99 "
      + "\(format(percentile(latencies, 99), decimals: decimals)) / max "
      + "\(format(latencies.max()!, decimals: decimals)) \(unit)"
  }
  let oursCount =
    "\(format(Double(oursLatencies.count), decimals: 0)) edits"
    + (oursMissed > 0 ? ", \(oursMissed) missed" : "")
  let theirsCount = "\(theirsLatencies.count) edits" + (theirsMissed > 0 ? ", \(theirsMissed) missed" : "")
  let p50 = oursLatencies.isEmpty ? .infinity : percentile(oursLatencies, 50)
  let p99 = oursLatencies.isEmpty ? .infinity : percentile(oursLatencies, 99)
  let theirsP50 = theirsLatencies.isEmpty ? .infinity : percentile(theirsLatencies, 50)
  rows.append(
    Row(
      name: "3. reload: rename() → new value on typed stream (Int `$port.changes`; theirs `watchString`)",
      ours: "\(latencyCells(oursLatencies)) (\(oursCount))",
      theirs: "\(latencyCells(theirsLatencies)) (\(theirsCount)) swift-configuration ReloadingFileProvider, "
        + "poll 1 s (default 15 s)",
      ratio: "p50 " + speedRatio(ours: p50, theirs: theirsP50),
      target: "p50 ≤ 2 ms, p99 ≤ 10 ms", met: yesNo(p50 <= 2 && p99 <= 10 && oursMissed == 0)))
  let theirsIntText: String
  if let intArrived {
    theirsIntText = "yes, after \(format((intArrived - intStart).nanoseconds / 1e6, decimals: 0)) ms"
  } else {
    theirsIntText =
      "no: `watchInt` silent for 3.5 s (3 polls); initial value "
      + (intInitial ? "delivered" : "not delivered") + "; `int(forKey:)` afterwards reads "
      + (intReadAfter.map(String.init) ?? "nil")
  }
  rows.append(
    Row(
      name: "3. an Int change in a JSON file reaches the typed watcher",
      ours: oursLatencies.isEmpty
        ? "no"
        : "yes (\(format(Double(oursLatencies.count), decimals: 0))/\(format(Double(edits), decimals: 0)) edits)",
      theirs: "\(theirsIntText) (swift-configuration)", ratio: "—", target: "yes",
      met: yesNo(!oursLatencies.isEmpty && oursMissed == 0)))
  return rows
}

/// A small deterministic pseudo-random generator (SplitMix64).
struct SplitMix64: RandomNumberGenerator {
  var state: UInt64
  init(seed: UInt64) { state = seed }
  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }
}
