import Foundation
import Synchronization
import Testing

@testable import Strata

/// Edited from outside: every setting of the group holds the same edit number in each file version.
struct AlphaStressSettings: SettingsGroup {
  static var section: String { "alpha" }
  @Setting var a = 0
  @Setting var b = 0
  @Setting var c = 0
  @Setting var tag = "e0"
}

/// Edited from outside with `alpha`, in the same file: `y == -x`, `label == "L<x>"`.
struct BetaStressSettings: SettingsGroup {
  static var section: String { "beta" }
  @Setting var x = 0
  @Setting var y = 0
  @Setting var label = "L0"
}

/// Written by the program (`$w0.save(…)`), one writer thread per setting; outside edits never touch it.
struct GammaStressSettings: SettingsGroup {
  static var section: String { "gamma" }
  @Setting var w0 = 0
  @Setting var w1 = 0
  @Setting var w2 = 0
  @Setting var w3 = 0

  func record(_ index: Int) -> SettingRecord<Int> { [$w0, $w1, $w2, $w3][index] }
}

/// The first few problems seen by any thread, and how many in all.
final class Violations: Sendable {
  private let first = Locked<[String]>([])
  private let count = Atomic<Int>(0)

  func check(_ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String) {
    guard !condition() else { return }
    count.add(1, ordering: .relaxed)
    let text = message()
    first.withLock { if $0.count < 10 { $0.append(text) } }
  }

  var total: Int { count.load(ordering: .relaxed) }
  var examples: [String] { first.withLock { $0 } }
}

/// Eight reader threads read every setting of three groups while the configuration file is edited
/// thousands of times (with the store's watcher reloading it) and four threads write settings to the
/// user file.
///
/// - No torn group reads: inside `withConsistentSnapshot` every group (and both outside-edited groups
///   together) shows one edit number; a single property read outside it returns a value some version of
///   the files held (never one not yet written), and never goes back.
/// - No write is lost: each writer reads its own write back at once, and at the end the store and the
///   user file hold every writer's last value, alongside the last outside edit.
@Suite struct StressReadWriteTests {
  static func systemFile(_ edit: Int) -> String {
    "[alpha]\na = \(edit)\nb = \(edit)\nc = \(edit)\ntag = e\(edit)\n[beta]\nx = \(edit)\ny = \(-edit)\nlabel = L\(edit)\n"
  }

  @Test func readersNeverSeeTornGroupsWhileFilesAreEditedAndSettingsWritten() async throws {
    let edits = StressScale.count(2_000, minimum: 200)
    let writesPerWriter = StressScale.count(100, minimum: 20)
    let readerCount = 8
    let writerCount = 4
    try await withTemporaryDirectory { dir in
      let system = dir + "/etc/app.ini"
      let user = dir + "/home/app.json"
      try write(Self.systemFile(0), to: system)
      let store = SettingsStore(
        layers: [FileLayer(scope: .system, files: [system]), FileLayer(scope: .user, files: [user])],
        writeTarget: .file(user))
      let alpha = AlphaStressSettings(store: store)
      let beta = BetaStressSettings(store: store)
      let gamma = GammaStressSettings(store: store)
      let ready = SharedInt()
      let running = Task { await store.run(onReady: { ready.store(1) }) }
      defer { running.cancel() }
      #expect(await waitUntil(within: 120) { ready.load() == 1 })

      // What has been written so far: set *before* each write, so a read can never exceed it.
      let edited = SharedInt()
      let written = (0..<writerCount).map { _ in SharedInt() }
      let stop = SharedInt()
      let reads = SharedInt()
      let violations = Violations()
      let failedWrites = SharedInt()
      let started = Date()

      let readers = ThreadGroup()
      for reader in 0..<readerCount {
        readers.spawn {
          var lastEdit = 0
          var lastPlain = [Int](repeating: 0, count: 6)
          var lastWrites = [Int](repeating: 0, count: writerCount)
          var count = 0
          func plain(_ slot: Int, _ value: Int, _ name: String) {
            violations.check(
              value >= lastPlain[slot] && value <= edited.load(),
              "reader \(reader): \(name) = \(value) after \(lastPlain[slot]), edited \(edited.load())"
            )
            lastPlain[slot] = max(lastPlain[slot], value)
          }
          while stop.load() == 0 {
            // One generation for both outside-edited groups.
            let (a, b, c, tag, x, y, label) = alpha.withConsistentSnapshot { alpha in
              (alpha.a, alpha.b, alpha.c, alpha.tag, beta.x, beta.y, beta.label)
            }
            violations.check(
              a == b && b == c && tag == "e\(a)" && x == a && y == -a && label == "L\(a)",
              "reader \(reader): torn read a=\(a) b=\(b) c=\(c) tag=\(tag) x=\(x) y=\(y) label=\(label)")
            violations.check(
              a >= lastEdit && a <= edited.load(),
              "reader \(reader): edit \(a) after \(lastEdit), edited \(edited.load())")
            lastEdit = max(lastEdit, a)
            let (bx, by, blabel) = beta.withConsistentSnapshot { ($0.x, $0.y, $0.label) }
            violations.check(
              by == -bx && blabel == "L\(bx)", "reader \(reader): torn beta \(bx) \(by) \(blabel)")
            let values = gamma.withConsistentSnapshot { g in [g.w0, g.w1, g.w2, g.w3] }
            for (index, value) in values.enumerated() {
              violations.check(
                value >= lastWrites[index] && value <= written[index].load(),
                "reader \(reader): w\(index) = \(value) after \(lastWrites[index])")
              lastWrites[index] = max(lastWrites[index], value)
            }
            // Single reads, each on its own: a value some version held, never going back.
            plain(0, alpha.a, "a")
            plain(1, alpha.b, "b")
            plain(2, alpha.c, "c")
            plain(3, Int(alpha.tag.dropFirst()) ?? -1, "tag")
            plain(4, beta.x, "x")
            plain(5, -beta.y, "-y")
            let w = gamma.w2
            violations.check(
              w <= written[2].load(), "reader \(reader): w2 = \(w) unwritten")
            count += 1
          }
          reads.add(count)
        }
      }

      let editors = ThreadGroup()
      editors.spawn {
        for edit in 1...edits {
          edited.store(edit)
          do {
            try replaceFile(system, with: Self.systemFile(edit))
            // One edit in four is also reloaded at once, as after a SIGHUP, racing the watcher's reloads.
            if edit % 4 == 1 { store.reload(paths: [system]) }
          } catch {
            violations.check(false, "edit \(edit) failed: \(error)")
          }
        }
      }
      for writer in 0..<writerCount {
        editors.spawn {
          let record = gamma.record(writer)
          for value in 1...writesPerWriter {
            written[writer].store(value)
            do {
              try record.save(value)
            } catch {
              failedWrites.add(1)
              violations.check(false, "writer \(writer): write \(value) failed: \(error)")
            }
            // Published at once: the writer reads its own write back.
            let readBack = record.value
            violations.check(readBack == value, "writer \(writer): wrote \(value), read back \(readBack)")
          }
        }
      }
      await editors.join()
      let editingSeconds = Date().timeIntervalSince(started)
      // The watcher catches up with the last edit (a deadline, not a sleep).
      let caughtUp = await waitUntil(within: 60) { alpha.a == edits }
      stop.store(1)
      await readers.join()

      #expect(caughtUp, "the last edit was not reloaded: a = \(alpha.a), expected \(edits)")
      #expect(violations.total == 0, "\(violations.examples)")
      #expect(failedWrites.load() == 0)
      #expect(alpha.withConsistentSnapshot { ($0.a, $0.tag) } == (edits, "e\(edits)"))
      #expect(beta.withConsistentSnapshot { ($0.x, $0.y, $0.label) } == (edits, -edits, "L\(edits)"))
      // No write lost: every writer's last value, in the store and in the file.
      let saved = try #require(try Formats.load(path: user)).root
      for writer in 0..<writerCount {
        #expect(gamma.record(writer).value == writesPerWriter)
        #expect(integer(saved.value(at: "gamma.w\(writer)")) == writesPerWriter, "w\(writer) in the file")
      }
      let totalReads = reads.load()
      #expect(totalReads >= readerCount)
      print(
        "StressReadWrite: \(edits) edits, \(writerCount * writesPerWriter) writes in "
          + String(format: "%.1f", editingSeconds) + "s; \(totalReads) read rounds by \(readerCount) readers "
          + "(each: 2 consistent group reads, 1 across groups, 7 single reads); generation \(store.generation); "
          + "total " + String(format: "%.1f", Date().timeIntervalSince(started)) + "s"
          + (StressScale.isThreadSanitized ? " (ThreadSanitizer)" : ""))
    }
  }
}
