import Glibc
import Strata

/// Rows 6: how long an edit takes to reach a program, for one JSON file and for a whole app's layout
/// (``EditLayout``). The same rename() of the edited file is timed to three readers: `inotifywait -m`
/// printing the event (the floor: the kernel's event reaching a process's stdout), `config-dump --watch`
/// printing its JSON line, and a typed stream in this process. The six readers run in turns, one at a
/// time (each started for its turn, then stopped), a few rounds each in a rotating order, so that every
/// figure and its floor come from the same stretches of a noisy host.
func latencyRows(_ options: Options) async -> [Row] {
  let rounds = options.quick ? 2 : 5
  let editsPerRound = options.quick ? 50 : 100
  let layouts = [EditLayout.oneFile(), EditLayout.appLayout()]
  defer { for layout in layouts { layout.remove() } }
  let dump = releaseConfigDump(options)
  var readers: [LatencyReader] = []
  for index in layouts.indices {
    readers.append(.floor(layout: index))
    if dump != nil { readers.append(.dump(layout: index)) }
    readers.append(.stream(layout: index))
  }
  var latencies: [LatencyReader: [Double]] = [:]
  var missed: [LatencyReader: Int] = [:]
  var port = 1_000
  for round in 0..<rounds {
    printError("latency: round \(round + 1) of \(rounds), \(editsPerRound) edits per reader")
    for turn in 0..<readers.count {
      let reader = readers[(turn + round) % readers.count]
      let layout = layouts[reader.layout]
      port += 1_000
      guard let started = await reader.start(layout: layout, configDump: dump, firstPort: port) else {
        continue
      }
      port += 100
      for _ in 0..<editsPerRound {
        port += 1
        if let latency = await started.time(edit: port) {
          latencies[reader, default: []].append(latency)
        } else {
          missed[reader, default: 0] += 1
        }
      }
      await started.stop()
    }
  }
  for (reader, count) in missed.sorted(by: { $0.key.name < $1.key.name }) where count > 0 {
    printError("latency: \(reader.name) missed \(count) edits")
  }

  var rows: [Row] = []
  for (index, layout) in layouts.enumerated() {
    let floor = latencies[.floor(layout: index)]
    let floorP50 = floor.map { percentile($0, 50) } ?? .nan
    func ratio(_ values: [Double]?) -> String {
      guard let values, !floorP50.isNaN else { return "—" }
      return "\(format(percentile(values, 50) / floorP50, decimals: 2))× the floor"
    }
    func met(_ values: [Double]?) -> String {
      guard let values, !floorP50.isNaN else { return "no" }
      return yesNo(percentile(values, 50) <= 1.5 * floorP50)
    }
    let what =
      index == 0
      ? "one JSON file"
      : "app layout (vendor plist, system INI + INI and JSON drop-ins, user JSON, a variable), "
        + "system INI edited"
    let dumped = latencies[.dump(layout: index)]
    rows.append(
      Row(
        name:
          "6. latency, \(what): rename() → a line from `\(layout.dumpCommand)` (theirs: `inotifywait -m`, the floor)",
        ours: latencyCells(dumped), theirs: latencyCells(floor), ratio: ratio(dumped),
        target: "p50 ≤ 1.5× the floor", met: met(dumped)))
    let streamed = latencies[.stream(layout: index)]
    rows.append(
      Row(
        name:
          "6. latency, \(what): rename() → the value on a typed stream, in-process (theirs: `inotifywait -m`)",
        ours: latencyCells(streamed), theirs: latencyCells(floor), ratio: ratio(streamed),
        target: "p50 ≤ 1.5× the floor", met: met(streamed)))
  }
  return rows
}

/// `p50 0.156 / p99 0.307 ms (500 edits)`.
private func latencyCells(_ latencies: [Double]?) -> String {
  guard let latencies, !latencies.isEmpty else { return "not measured (see stderr)" }
  return "p50 \(format(percentile(latencies, 50), decimals: 3)) / p99 "
    + "\(format(percentile(latencies, 99), decimals: 3)) ms (\(latencies.count) edits)"
}

/// One of the readers an edit is timed to, for the layout at an index.
private enum LatencyReader: Hashable {
  /// `inotifywait -m` on the edited file's directory.
  case floor(layout: Int)
  /// The release `config-dump --watch`.
  case dump(layout: Int)
  /// A typed stream in this process.
  case stream(layout: Int)

  var layout: Int {
    switch self {
    case .floor(let layout), .dump(let layout), .stream(let layout): layout
    }
  }

  var name: String {
    switch self {
    case .floor(let layout): "inotifywait -m (layout \(layout))"
    case .dump(let layout): "config-dump --watch (layout \(layout))"
    case .stream(let layout): "typed stream (layout \(layout))"
    }
  }

  /// Starts the reader over `layout` and waits until it sees edits; `nil` when it cannot.
  func start(layout: EditLayout, configDump: String?, firstPort: Int) async -> (any TimedReader)? {
    switch self {
    case .floor:
      // stdbuf: inotifywait's stdout is a pipe here, which stdio would buffer; a line per event is the
      // floor.
      let name = layout.editedName
      return LineReader(
        "stdbuf",
        ["-oL", "inotifywait", "-m", "-q", "-e", "moved_to", "--format", "%f %e", layout.editedDirectory],
        layout: layout, firstPort: firstPort, line: { _ in "\(name) MOVED_TO" })
    case .dump:
      guard let configDump else { return nil }
      return LineReader(
        configDump, layout.dumpArguments, environment: layout.dumpEnvironment, layout: layout,
        firstPort: firstPort, line: layout.dumpLine)
    case .stream:
      return await StreamReader(layout: layout)
    }
  }
}
