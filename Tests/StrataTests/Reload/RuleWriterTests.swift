import Foundation
import Testing

@testable import Strata

/// A group's rule under real writers: vim's rename save of an INI file, and kubelet's `..data` swap of a
/// key-per-file volume. Every generation the running store publishes holds a pair a writer wrote that
/// keeps the rule (`minConnections <= maxConnections`): never a breaking pair, never half of one.
@Suite(.linuxOnly("vim, kubelet's volume layout"), .serialized)
struct RuleWriterTests {
  static let keys = ["pool.minConnections", "pool.maxConnections"]

  /// Version `n`'s pair: every third version breaks the rule.
  static func pair(_ n: Int) -> (min: Int, max: Int) { n % 3 == 0 ? (n + 10, n) : (n, n + 5) }
  static func breaks(_ n: Int) -> Bool { pair(n).min > pair(n).max }
  static func values(_ n: Int) -> [String?] { ["\(pair(n).min)", "\(pair(n).max)"] }
  static func ini(_ n: Int) -> String {
    "[pool]\nminConnections = \(pair(n).min)\nmaxConnections = \(pair(n).max)\n"
  }

  /// vim with its defaults, replacing the buffer with version `n` and saving (by renaming the file).
  static func vim(_ n: Int, _ file: String) -> String {
    let lines = ini(n).split(separator: "\n").map { "'\($0)'" }.joined(separator: ", ")
    return "vim --clean -i NONE -es -c '%d' -c \"call setline(1, [\(lines)])\" -c 'wq' \(file)"
  }

  /// Each version saved by vim and waited for: a keeping one is published, a breaking one is told as a
  /// `failed` event and leaves the last keeping pair; no generation ever holds a breaking pair.
  @Test func vimSavesThatBreakTheRuleAreNeverPublished() async throws {
    try requireTool("vim")
    try await withTemporaryDirectory { dir in
      let file = dir + "/etc/app/app.ini"
      try write(Self.ini(1), to: file)
      try await withRecordedStore(layers: [FileLayer(scope: .system, files: [file])], keys: Self.keys) {
        store, recorder in
        let pool = RulePoolSettings(store: store)
        var lastKept = 1
        for n in 2...12 {
          let failuresBefore = recorder.failures.count
          try await shell(Self.vim(n, file))
          if Self.breaks(n) {
            let told = await recorder.wait { recorder.failures.count > failuresBefore }
            #expect(told, "version \(n) (breaking) was not told: \(recorder.generations)")
            #expect(
              recorder.failures.last?.contains("breaks its rule 'minConnections <= maxConnections'") == true)
            #expect(recorder.values(in: store.snapshot) == Self.values(lastKept))
          } else {
            lastKept = n
            let applied = await recorder.wait { recorder.values(in: store.snapshot) == Self.values(n) }
            #expect(applied, "version \(n) was not applied: \(recorder.generations)")
          }
          #expect(pool.minConnections <= pool.maxConnections)
        }
        let kept = (1...12).filter { !Self.breaks($0) }.map(Self.values)
        expectEveryGeneration(recorder, in: kept, "vim saves, every third breaking the rule")
      }
    }
  }

  /// kubelet swaps a volume of two keys 150 times, 0–2 ms apart (a third of the payloads breaking the
  /// rule): every generation holds a payload whole that keeps it, and the last one is applied.
  @Test func kubeletSwapsThatBreakTheRuleAreNeverPublished() async throws {
    try await withTemporaryDirectory { dir in
      var writer = try KubeletAtomicWriter(directory: dir + "/volume")
      func payload(_ n: Int) -> [String: String] {
        ["minConnections": "\(Self.pair(n).min)\n", "maxConnections": "\(Self.pair(n).max)\n"]
      }
      try writer.publish(payload(1))
      let layer = KeyPerFileLayer(directory: writer.directory, keyPrefix: "pool")
      try await withRecordedStore(layers: [layer], keys: Self.keys) { store, recorder in
        let pool = RulePoolSettings(store: store)
        let swaps = 151  // the last keeps the rule
        for n in 2...swaps {
          try writer.publish(payload(n))
          let pause = Int.random(in: 0...2)
          if pause > 0 { try await Task.sleep(for: .milliseconds(pause)) }
        }
        let applied = await recorder.wait { recorder.values(in: store.snapshot) == Self.values(swaps) }
        #expect(
          applied, "the last payload was not applied; the store shows \(recorder.values(in: store.snapshot))")
        let kept = (1...swaps).filter { !Self.breaks($0) }.map(Self.values)
        expectEveryGeneration(recorder, in: kept, "kubelet swaps, a third breaking the rule")
        #expect(pool.minConnections == Self.pair(swaps).min)
      }
    }
  }
}
