import Foundation
import Synchronization
import Testing

@testable import Strata
@testable import StrataTesting

/// One setting per source of change, each only ever given larger values: whatever the interleaving, a
/// store that publishes its generations in order never shows a value smaller than one it showed before.
struct OrderedSettings: SettingsGroup {
  static var section: String { "order" }
  @Setting var runtime0 = 0
  @Setting var runtime1 = 0
  @Setting var runtime2 = 0
  /// Written to the user's file with `store.write`.
  @Setting var written = 0
  /// Edited from outside, by replacing the file.
  @Setting var file = 0
  /// From the remote-style source.
  @Setting var remote = 0
  /// Given `"bad-k"` (not an Int: a rejected edit) and then `k`, for k = 1, 2, …
  @Setting var checked = 0

  var records: [SettingRecord<Int>] { [$runtime0, $runtime1, $runtime2, $written, $file, $remote, $checked] }
}

/// A remote-style source: a revision that only grows, and a signal pushed on each bump (coalesced, as a
/// watch on a remote store would be).
final class RevisionSource: Layer, Sendable {
  let scope = Scope.vendor
  let name = "remote"
  private let revision = Atomic<Int>(0)
  private let signals: AsyncStream<Void>
  private let continuation: AsyncStream<Void>.Continuation

  init() {
    (signals, continuation) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
  }

  /// Moves to the next revision and tells the store.
  func bump() {
    revision.add(1, ordering: .releasing)
    continuation.yield()
  }

  func load(_ context: LoadContext) -> LayerContents {
    let now = revision.load(ordering: .acquiring)
    let origin = Origin.remote(source: name, key: "order.remote", revision: now)
    let order = SettingValue(
      .table(SettingTable([("remote", SettingValue(.integer(now), origin: origin))])), origin: origin)
    return LayerContents(documents: [
      Document(path: name, root: SettingValue(.table(SettingTable([("order", order)])), origin: origin))
    ])
  }

  func follow(signal: @escaping @Sendable () -> Void) async {
    for await _ in signals { signal() }
  }
}

/// The `k` of a problem about `"bad-k"`, the checked setting's rejected value.
func rejectedCount(_ error: StrataError) -> Int? {
  guard let start = error.message.range(of: "\"bad-") else { return nil }
  return Int(error.message[start.upperBound...].prefix { $0.isNumber })
}

/// What one subscriber saw, checked as it arrives. Every check holds for any interleaving of writers
/// when generations are read, published and announced one after another:
/// - `reloaded` generations strictly increase;
/// - each typed stream never yields a value smaller than the one before (every source only grows);
/// - the checked setting's problems come in the order they were made: `rejected "bad-k"` (rank 2k),
///   `diagnosed "bad-k"` (2k), `recovered "bad-k"` (2k + 1) never go down in rank, and no rejection is
///   told twice (`rejected` and `recovered` strictly increase), nor told as a `failed` source. A problem told after its fix was
///   announced is a stale diagnostic.
final class SubscriberLog: Sendable {
  private struct State {
    var latest: [String: Int] = [:]
    var values = 0
    var lastGeneration = 0
    var reloads = 0
    var rank = 0
    var rejectedRank = 0
    var recoveredRank = 0
    var problems: [String: Int] = [:]
    var examples: [String] = []

    mutating func problem(_ kind: String, _ example: String) {
      problems[kind, default: 0] += 1
      if examples.count < 8 { examples.append(example) }
    }
  }

  /// A pthread mutex, which ThreadSanitizer sees (`Synchronization.Mutex` it does not: see ``Locked``).
  private let state = Locked(State())

  func saw(_ value: Int, forKey key: String) {
    state.withLock { state in
      state.values += 1
      if let last = state.latest[key], value < last {
        state.problem("a stream went back", "\(key): \(value) after \(last)")
      }
      state.latest[key] = value
    }
  }

  func saw(_ event: StoreEvent) {
    state.withLock { state in
      switch event {
      case .reloaded(let generation, _, _):
        state.reloads += 1
        if generation <= state.lastGeneration {
          state.problem("reloaded out of order", "generation \(generation) after \(state.lastGeneration)")
        }
        state.lastGeneration = generation
      case .failed(let error):
        if rejectedCount(error) != nil {
          state.problem("a rejected edit told as a failed source", "failed \(error)")
        }
      case .rejected(let error):
        guard let count = rejectedCount(error) else { return }
        check(&state, rank: 2 * count, told: "rejected", error)
        if 2 * count <= state.rejectedRank { state.problem("a rejection told twice", "rejected \(error)") }
        state.rejectedRank = max(state.rejectedRank, 2 * count)
      case .recovered(let error):
        guard let count = rejectedCount(error) else { return }
        check(&state, rank: 2 * count + 1, told: "recovered", error)
        if 2 * count + 1 <= state.recoveredRank { state.problem("a fix told twice", "recovered \(error)") }
        state.recoveredRank = max(state.recoveredRank, 2 * count + 1)
      case .diagnosed(let diagnostic):
        guard let count = rejectedCount(diagnostic.error) else { return }
        check(&state, rank: 2 * count, told: "diagnosed", diagnostic.error)
      case .pendingRestart, .watcherFallback, .controlRefused, .overrideExpired: return
      }
    }
  }

  private func check(_ state: inout State, rank: Int, told: String, _ error: StrataError) {
    if rank < state.rank {
      state.problem("a stale rejection told", "\(told) \(error.message) after rank \(state.rank)")
    }
    state.rank = max(state.rank, rank)
  }

  func latest(_ key: String) -> Int? { state.withLock { $0.latest[key] } }
  var reloads: Int { state.withLock { $0.reloads } }
  var values: Int { state.withLock { $0.values } }
  var problems: [String: Int] { state.withLock { $0.problems } }
  var examples: [String] { state.withLock { $0.examples } }
}

/// The checked setting's problem as `store.diagnostics` shows it over time, read by one thread. Each
/// read shows some published generation, later or the same as the read before, so the rejected value
/// it names (`bad-k`) never goes down, and once a read shows no problem (the fix of `bad-k` or a later
/// one is published) the next problem is a later `bad-j`, j > k.
struct DiagnosticTrail {
  private var last = 0
  private var clearedSince = false
  private(set) var reads = 0
  private(set) var problems = 0
  private(set) var examples: [String] = []

  mutating func read(_ diagnostics: [Diagnostic]) {
    reads += 1
    let counts = diagnostics.compactMap { rejectedCount($0.error) }
    if counts.count > 1 { problem("\(counts.count) problems at once: \(counts)") }
    guard let count = counts.max() else {
      clearedSince = true
      return
    }
    if count < last || (count == last && clearedSince) {
      problem("bad-\(count) after bad-\(last)\(clearedSince ? " and its fix" : "")")
    }
    last = count
    clearedSince = false
  }

  private mutating func problem(_ text: String) {
    problems += 1
    if examples.count < 8 { examples.append(text) }
  }
}

/// Writers, each on a thread of its own (they block on the store's locks and on disk; the concurrency
/// pool's threads must not), and what they report when they end.
final class WriterThreads: Sendable {
  private let state = Locked((finished: 0, errors: [String]()))

  /// Starts `work` on a new thread; its errors are kept when it ends.
  func start(_ work: @escaping @Sendable () -> [String]) {
    Thread {
      let errors = work()
      self.state.withLock {
        $0.finished += 1
        $0.errors += errors
      }
    }.start()
  }

  var finished: Int { state.withLock { $0.finished } }
  var errors: [String] { state.withLock { $0.errors } }
}

/// Waits on the calling thread (a writer's own, never the concurrency pool's) until `condition` holds,
/// polling, or until `seconds` have passed (`false`).
func pace(until condition: () -> Bool, within seconds: Int = 30) -> Bool {
  let deadline = Deadline(.seconds(seconds))
  while !condition() {
    if deadline.hasPassed { return condition() }
    usleep(100)
  }
  return true
}

/// Runtime writers, `store.write`, file edits and a remote-style source drive one store at once, for
/// thousands of generations; each subscriber must see them in order (see ``SubscriberLog``), the
/// store's diagnostics must never go back to a problem that was fixed (see ``DiagnosticTrail``), and
/// once the writers stop, every value and every subscriber must come to the last value written, with no
/// problem standing.
@Suite struct GenerationOrderTests {
  /// How many times each source changes: some 2,600 generations, in 1–3 s in a debug build and about
  /// twice that under ThreadSanitizer (not scaled down there: the races need the generations).
  static let runtimeWrites = 600
  static let checkedRounds = 300
  static let fileWrites = 100
  static let fileEdits = 300
  static let remoteBumps = 600
  static let subscriberCount = 3

  @Test func everySubscriberSeesGenerationsInOrderWhileWritersEditsAndARemoteSourceRace() async throws {
    try await withTemporaryDirectory { dir in
      let edited = dir + "/etc/order.json"
      let userFile = dir + "/home/order.ini"
      try write(#"{"order": {"file": 0}}"#, to: edited)
      try FileManager.default.createDirectory(atPath: dir + "/home", withIntermediateDirectories: true)
      let remote = RevisionSource()
      let store = SettingsStore(
        layers: [
          remote, FileLayer(scope: .system, files: [edited]), FileLayer(scope: .user, files: [userFile]),
        ], writeTarget: .file(userFile))
      let settings = OrderedSettings(store: store)
      let records = settings.records

      let ready = SharedInt()
      let running = Task { await store.run(onReady: { ready.store(1) }) }
      defer { running.cancel() }
      try #require(
        await Deadline(.seconds(shortestWaitDeadline)).wait { ready.load() == 1 },
        "the store's run loop did not become ready")

      // Subscribed before anything changes: each sees every generation from here on.
      let logs = (0..<Self.subscriberCount).map { _ in SubscriberLog() }
      var subscribers: [Task<Void, Never>] = []
      let ended = SharedInt()
      for log in logs {
        let events = store.events
        subscribers.append(
          Task {
            for await event in events { log.saw(event) }
            ended.add(1)
          })
        for record in records {
          let changes = record.changes
          let key = record.key
          subscribers.append(
            Task {
              for await value in changes { log.saw(value, forKey: key) }
              ended.add(1)
            })
        }
      }
      let firstGeneration = store.generation

      // Every writer at once, each on a thread of its own. The file and the remote source change in
      // step with the runtime writers' progress, so that their generations interleave with the writes
      // from start to end (paced by the writers, not by the watcher, which may poll). The runtime
      // writers also follow the checked setting's diagnostic in `store.diagnostics`, each on its own.
      let trails = Locked<[String: DiagnosticTrail]>([:])
      let progress = SharedInt()
      let totalRuntimeWrites = 3 * Self.runtimeWrites
      let inStep: @Sendable (_ step: Int, _ steps: Int) -> Bool = { step, steps in
        pace(until: { progress.load() * steps >= step * totalRuntimeWrites })
      }
      var writers: [@Sendable () -> [String]] = (0..<3).map { index in
        {
          var errors: [String] = []
          var seen = DiagnosticTrail()
          for value in 1...Self.runtimeWrites {
            do {
              try store.setRuntimeValue(
                SettingValue(.integer(value), origin: .runtime), forKey: "order.runtime\(index)")
            } catch { errors.append("runtime\(index): \(error)") }
            progress.add(1)
            seen.read(store.diagnostics)
          }
          trails.withLock { $0["runtime\(index)"] = seen }
          return errors
        }
      }
      writers.append {
        var errors: [String] = []
        var seen = DiagnosticTrail()
        for count in 1...Self.checkedRounds {
          for value in [
            SettingValue(.string("bad-\(count)"), origin: .runtime),
            SettingValue(.integer(count), origin: .runtime),
          ] {
            do { try store.setRuntimeValue(value, forKey: "order.checked") } catch {
              errors.append("checked: \(error)")
            }
            seen.read(store.diagnostics)
          }
        }
        trails.withLock { $0["checked"] = seen }
        return errors
      }
      writers.append {
        var errors: [String] = []
        for value in 1...Self.fileWrites {
          do {
            try store.write(SettingValue(.integer(value), origin: .runtime), forKey: "order.written")
          } catch { errors.append("written: \(error)") }
        }
        return errors
      }
      writers.append {
        var errors: [String] = []
        for value in 1...Self.fileEdits {
          _ = inStep(value, Self.fileEdits)
          do { try replaceFile(edited, with: #"{"order": {"file": \#(value)}}"#) } catch {
            errors.append("file: \(error)")
          }
        }
        return errors
      }
      writers.append {
        for value in 1...Self.remoteBumps {
          _ = inStep(value, Self.remoteBumps)
          remote.bump()
        }
        return []
      }
      let threads = WriterThreads()
      for writer in writers { threads.start(writer) }
      try #require(
        await Deadline(.seconds(300)).wait { threads.finished == writers.count },
        "the writers did not finish within 300 s")
      #expect(threads.errors.isEmpty, "\(threads.errors.prefix(5))")

      // Quiet now: every source's last value must arrive, and reach every subscriber.
      let final = [
        "order.runtime0": Self.runtimeWrites, "order.runtime1": Self.runtimeWrites,
        "order.runtime2": Self.runtimeWrites, "order.written": Self.fileWrites, "order.file": Self.fileEdits,
        "order.remote": Self.remoteBumps, "order.checked": Self.checkedRounds,
      ]
      let settled = await Deadline(.seconds(shortestWaitDeadline)).wait {
        records.allSatisfy { $0.value == final[$0.key] }
          && logs.allSatisfy { log in records.allSatisfy { log.latest($0.key) == final[$0.key] } }
      }
      let behind = logs.enumerated().flatMap { index, log in
        records.compactMap { record in
          log.latest(record.key) == final[record.key]
            ? nil : "subscriber \(index)'s last \(record.key) is \(log.latest(record.key) ?? -1)"
        }
      }
      #expect(settled, "values: \(records.map { "\($0.key) = \($0.value)" }); streams: \(behind)")
      // The last write fixed the checked setting: no problem may stand, least of all an older one.
      let clean = await Deadline(.seconds(shortestWaitDeadline)).wait { store.diagnostics.isEmpty }
      #expect(clean, "standing after the last fix: \(store.diagnostics.map(\.description))")
      #expect(store.generation > firstGeneration)

      // Ends every stream; each subscriber reads what it was sent, then stops.
      store.shutdown()
      let drained = await Deadline(.seconds(60)).wait { ended.load() == subscribers.count }
      #expect(drained, "\(subscribers.count - ended.load()) subscribers did not end after shutdown")
      for subscriber in subscribers { subscriber.cancel() }

      for (index, log) in logs.enumerated() {
        #expect(log.reloads > 0, "subscriber \(index) saw no reloaded event")
        #expect(
          log.problems.isEmpty,
          "subscriber \(index): \(log.problems) in \(log.reloads) reloads and \(log.values) values, e.g. \(log.examples)"
        )
      }
      let seen = trails.withLock { $0 }
      #expect(seen.count == 4)
      for (writer, seen) in seen.sorted(by: { $0.key < $1.key }) {
        #expect(
          seen.problems == 0,
          "store.diagnostics, read by \(writer), went back \(seen.problems) times in \(seen.reads) reads, e.g. \(seen.examples)"
        )
      }
    }
  }
}
