import Configuration
import Strata
import Synchronization

/// The group read by the read rows and watched by the reload rows: section `server`.
struct ServerSettings: SettingsGroup {
  @Setting var port = 8080
  @Setting var name = "strata"
}

/// The baseline: a mutex-protected dictionary lookup of the same key.
final class MutexDictionary: Sendable {
  let values = Mutex<[String: Int]>(["server.port": 8443, "server.name": 1])
}

@inline(never)
func readOurs(_ group: ServerSettings, _ count: Int) -> Int {
  var sum = 0
  for _ in 0..<count { sum &+= group.port }
  return sum
}

@inline(never)
func readSwiftConfiguration(_ reader: ConfigReader, _ count: Int) -> Int {
  var sum = 0
  for _ in 0..<count { sum &+= reader.int(forKey: "server.port") ?? 0 }
  return sum
}

/// The control for scaling: a chain of multiply-adds that touches no memory, so that two threads of it
/// scale as far as this machine's cores let any work scale.
@inline(never)
func computeOnly(_ seed: Int, _ count: Int) -> Int {
  var value = seed
  for _ in 0..<count { value = value &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407 }
  return value
}

@inline(never)
func readBaseline(_ baseline: MutexDictionary, _ count: Int) -> Int {
  var sum = 0
  for _ in 0..<count { sum &+= baseline.values.withLock { $0["server.port"] ?? 0 } }
  return sum
}

/// Row 1: a cached typed read of `server.port` (8443 in every implementation).
func readRows(_ options: Options) throws -> [Row] {
  let directory = makeTemporaryDirectory("read")
  defer { removeTree(directory) }
  let path = "\(directory)/app.json"
  writeFile(path, #"{"server": {"port": 8443, "name": "bench"}}"#)
  let store = SettingsStore(layers: [FileLayer(scope: .user, files: [path])])
  let server = ServerSettings(store: store)
  let reader = ConfigReader(
    provider: InMemoryProvider(values: ["server.port": 8443, "server.name": "bench"]))
  let baseline = MutexDictionary()
  guard server.port == 8443, reader.int(forKey: "server.port") == 8443,
    baseline.values.withLock({ $0["server.port"] }) == 8443
  else { fatalError("read fixtures disagree") }

  let repetitionTime: Duration = options.quick ? .milliseconds(20) : .milliseconds(100)
  let repetitions = options.quick ? 5 : 9
  printError("read: 1 thread")
  let ours = nanosecondsPerOperation(repetitionTime: repetitionTime, repetitions: repetitions) {
    readOurs(server, $0)
  }
  let theirs = nanosecondsPerOperation(
    repetitionTime: repetitionTime, repetitions: repetitions
  ) { readSwiftConfiguration(reader, $0) }
  let base = nanosecondsPerOperation(repetitionTime: repetitionTime, repetitions: repetitions) {
    readBaseline(baseline, $0)
  }

  let reads = 10_000
  let oursAllocations =
    Double(Allocations.count { blackHole(readOurs(server, reads)) }.allocations) / Double(reads)
  let theirsAllocations =
    Double(Allocations.count { blackHole(readSwiftConfiguration(reader, reads)) }.allocations) / Double(reads)
  let baseAllocations =
    Double(Allocations.count { blackHole(readBaseline(baseline, reads)) }.allocations) / Double(reads)

  var rows = [
    Row(
      name: "1. cached typed read `server.port`, 1 thread, ns/read", ours: format(ours),
      theirs: "\(format(theirs)) swift-configuration `int(forKey:)`/InMemoryProvider",
      ratio: speedRatio(ours: ours, theirs: theirs), target: "≥ 30× faster", met: yesNo(theirs / ours >= 30)),
    Row(
      name: "1. cached typed read `server.port`, 1 thread, ns/read", ours: format(ours),
      theirs: "\(format(base)) `Mutex<[String: Int]>` lookup",
      ratio: speedRatio(ours: ours, theirs: base), target: "within 1.0× of the baseline",
      met: yesNo(ours <= base)),
    Row(
      name: "1. heap allocations per read", ours: format(oursAllocations, decimals: 2),
      theirs: "\(format(theirsAllocations, decimals: 2)) swift-configuration; "
        + "\(format(baseAllocations, decimals: 2)) baseline",
      ratio: "—", target: "0", met: yesNo(oursAllocations == 0)),
  ]

  // Several threads reading at once: aggregate reads per second (all threads' reads / wall time).
  let threadRepetitions = options.quick ? 3 : 5
  printError("read: 2 threads vs 1")
  let scaling = scalingInTurns(duration: repetitionTime, repetitions: options.quick ? 3 : 9) {
    blackHole(readOurs(server, $0))
  }
  for threads in [2, 8] {
    printError("read: \(threads) threads")
    let oursRate = medianRate(threads: threads, duration: repetitionTime, repetitions: threadRepetitions) {
      blackHole(readOurs(server, $0))
    }
    let theirsRate = medianRate(threads: threads, duration: repetitionTime, repetitions: threadRepetitions) {
      blackHole(readSwiftConfiguration(reader, $0))
    }
    let baseRate = medianRate(threads: threads, duration: repetitionTime, repetitions: threadRepetitions) {
      blackHole(readBaseline(baseline, $0))
    }
    rows.append(
      Row(
        name: "1. cached typed read, \(threads) threads, aggregate M reads/s",
        ours: format(oursRate / 1e6, decimals: 2),
        theirs: "\(format(theirsRate / 1e6, decimals: 2)) swift-configuration",
        ratio: throughputRatio(ours: oursRate, theirs: theirsRate), target: "≥ 30× faster",
        met: yesNo(oursRate >= 30 * theirsRate)))
    rows.append(
      Row(
        name: "1. cached typed read, \(threads) threads, aggregate M reads/s",
        ours: format(oursRate / 1e6, decimals: 2),
        theirs: "\(format(baseRate / 1e6, decimals: 2)) `Mutex<[String: Int]>`",
        ratio: throughputRatio(ours: oursRate, theirs: baseRate), target: "≥ baseline",
        met: yesNo(oursRate >= baseRate)))
    if threads == 2 {
      // Reads that write no shared memory scale with cores: 2 threads do nearly twice one thread's reads.
      // Both rates come from the same harness in the same rounds, beside the machine's own ceiling.
      let ratio = scaling.ours2 / scaling.ours1
      rows.append(
        Row(
          name: "1. cached typed read, 2 threads vs 1 thread, aggregate reads/s",
          ours: "\(format(scaling.ours2 / 1e6, decimals: 2)) vs "
            + "\(format(scaling.ours1 / 1e6, decimals: 2)) M/s",
          theirs: "\(format(scaling.control2 / scaling.control1, decimals: 2))× "
            + "for a loop that touches no memory",
          ratio: "\(format(ratio, decimals: 2))×", target: "≥ 1.8×", met: yesNo(ratio >= 1.8)))
    }
  }
  return rows
}

/// Aggregate rates at 1 and 2 threads of `body` and of ``computeOnly(_:_:)`` (the control), medians over
/// `repetitions` rounds, each round running all four in turn so that the ratios compare runs made in the
/// same stretches of the host.
private func scalingInTurns(
  duration: Duration, repetitions: Int, _ body: @escaping @Sendable (Int) -> Void
) -> (ours1: Double, ours2: Double, control1: Double, control2: Double) {
  let control: @Sendable (Int) -> Void = { blackHole(computeOnly($0, $0)) }
  let runs: [(threads: Int, body: @Sendable (Int) -> Void)] = [
    (1, body), (2, body), (1, control), (2, control),
  ]
  for run in runs { _ = aggregateRate(threads: run.threads, duration: duration / 4, chunk: 256, run.body) }
  var rates: [[Double]] = Array(repeating: [], count: runs.count)
  for _ in 0..<repetitions {
    for (index, run) in runs.enumerated() {
      rates[index].append(aggregateRate(threads: run.threads, duration: duration, chunk: 256, run.body))
    }
  }
  let medians = rates.map(median)
  return (medians[0], medians[1], medians[2], medians[3])
}

/// The median over `repetitions` of ``aggregateRate(threads:duration:chunk:_:)``, after a short warm-up.
private func medianRate(
  threads: Int, duration: Duration, repetitions: Int, _ body: @escaping @Sendable (Int) -> Void
) -> Double {
  _ = aggregateRate(threads: threads, duration: duration / 4, chunk: 256, body)  // warm-up
  return median(
    (0..<repetitions).map { _ in aggregateRate(threads: threads, duration: duration, chunk: 256, body) })
}
