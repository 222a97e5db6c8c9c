import Foundation
import StrataPlatform
import Testing

@testable import Strata

/// The record `strata-stress-child write` writes for a counter (Tests/StressChild/Writer.swift): a
/// payload whose length varies with the counter, and a check naming both.
func expectedStressRecord(_ counter: Int) -> (payload: String, check: String) {
  let length = 2_000 + (counter * 7_919) % 30_000
  let payload = String(repeating: "0123456789abcdef", count: length / 16 + 1).prefix(length)
  return (String(payload), "\(counter):\(length)")
}

/// An integer leaf, whether the format stores numbers (JSON, plist) or text (INI).
func integer(_ value: SettingValue?) -> Int? {
  switch value?.kind {
  case .integer(let number)?: number
  case .string(let text)?: Int(text)
  default: nil
  }
}

func string(_ value: SettingValue?) -> String? {
  if case .string(let text)? = value?.kind { return text }
  return nil
}

/// A writer process killed with `SIGKILL` at random points of its atomic writes never leaves a partial
/// or empty configuration file, and the temporary files it abandons are cleaned up by the next write.
@Suite struct KillDuringWriteTests {
  /// The counter the file at `path` holds, after checking the whole record is there and consistent.
  func verifiedCounter(_ path: String, iteration: Int) -> Int? {
    let document: Document?
    do {
      document = try Formats.load(path: path)
    } catch {
      Issue.record("iteration \(iteration): \(path) does not parse after a kill: \(error)")
      return nil
    }
    guard let root = document?.root else {
      Issue.record("iteration \(iteration): \(path) is missing")
      return nil
    }
    guard let counter = integer(root.value(at: "stress.record.counter")) else {
      Issue.record("iteration \(iteration): \(path) has no counter")
      return nil
    }
    let expected = expectedStressRecord(counter)
    #expect(string(root.value(at: "stress.record.check")) == expected.check, "iteration \(iteration)")
    #expect(string(root.value(at: "stress.record.payload")) == expected.payload, "iteration \(iteration)")
    return counter
  }

  /// The temporary files of writes to `name` in `directory`, with their sizes.
  func temporaries(of name: String, in directory: String) throws -> [(name: String, size: Int)] {
    try FileManager.default.contentsOfDirectory(atPath: directory)
      .filter { $0.hasPrefix(AtomicFile.temporaryPrefix(of: name)) }
      .map { ($0, FileSystem.size(of: directory + "/" + $0) ?? -1) }
  }

  @Test func aKilledWriterLeavesTheOldFileOrTheNewNeverAPartialOne() async throws {
    #expect(FileManager.default.isExecutableFile(atPath: stressChildPath), "not built: \(stressChildPath)")
    let kills = StressScale.count(210, minimum: 30)
    let formats = ["json", "ini", "plist"]
    let started = Date()
    try await withTemporaryDirectory { dir in
      var last: [String: Int] = [:]
      var interrupted = 0  // kills that left a temporary behind: they landed inside a write
      var mostTemporaries = 0
      var abandonedByFile: [String: [String]] = [:]  // the temporaries with content the last kill left
      for iteration in 0..<kills {
        let name = "app." + formats[iteration % formats.count]
        let path = dir + "/" + name
        let child = try ChildProcess(stressChildPath, ["write", path])
        guard let ready = await child.line(startingWith: "ready ") else {
          Issue.record("iteration \(iteration): the writer did not start: \(child.transcript)")
          return
        }
        // The child starts from what the file holds, and its first write cleaned up after the last kill.
        #expect(Int(ready.dropFirst("ready ".count)) == (last[name] ?? 0), "iteration \(iteration)")
        for abandoned in abandonedByFile[name] ?? [] {
          #expect(!FileManager.default.fileExists(atPath: dir + "/" + abandoned), "iteration \(iteration)")
        }
        try await Task.sleep(for: .microseconds(Int.random(in: 0...12_000)))  // when the fault strikes
        child.send(SIGKILL)
        #expect(await child.wait() == .signaled(SIGKILL), "iteration \(iteration): \(child.transcript)")
        guard let counter = verifiedCounter(path, iteration: iteration) else { return }
        #expect(counter >= (last[name] ?? 0) + 1, "iteration \(iteration): went back or lost the first write")
        last[name] = counter
        let left = try temporaries(of: name, in: dir)
        if !left.isEmpty { interrupted += 1 }
        mostTemporaries = max(mostTemporaries, left.count)
        abandonedByFile[name] = left.filter { $0.size > 0 }.map(\.name)
        #expect(abandonedByFile[name]!.count <= 1, "iteration \(iteration): \(left)")
      }
      // One more write per file, ending normally: every abandoned temporary with content is gone (an
      // empty one is kept for a minute, in case its writer is alive and about to lock it).
      for format in formats {
        let child = try ChildProcess(stressChildPath, ["write", dir + "/app." + format, "1"])
        let (output, ending) = await child.finish()
        #expect(ending == .exited(0), "\(output)")
        let left = try temporaries(of: "app." + format, in: dir)
        #expect(left.allSatisfy { $0.size == 0 }, "\(left)")
      }
      print(
        "KillDuringWrite: \(kills) kills in \(Int(Date().timeIntervalSince(started)))s, \(interrupted) inside a "
          + "write (temporary left), at most \(mostTemporaries) temporaries at once, final counters \(last)")
    }
  }

  @Test func abandonedTemporariesAreRemovedAndLiveOnesKept() throws {
    try withTemporaryDirectory { dir in
      let path = dir + "/app.json"
      let prefix = dir + "/" + AtomicFile.temporaryPrefix(of: "app.json")
      try write("{\"a\": 1}\n", to: path)
      try write("{\"half\": ", to: prefix + "Dead01")  // a killed writer's
      try write("", to: prefix + "Empty1")  // maybe a writer about to lock it: kept
      try write("", to: prefix + "OldEm1")  // empty but old: abandoned
      var old = [
        timeval(tv_sec: time(nil) - 3_600, tv_usec: 0), timeval(tv_sec: time(nil) - 3_600, tv_usec: 0),
      ]
      utimes(prefix + "OldEm1", &old)
      try write("{\"live\": ", to: prefix + "Live01")  // a live writer's: locked
      let live = open(prefix + "Live01", O_RDONLY)
      defer { close(live) }
      #expect(flock(live, LOCK_EX | LOCK_NB) == 0)  // never waits: nothing else holds it
      try write("x", to: dir + "/.app.json.swp")  // not ours
      // Another file's.
      try write("x", to: dir + "/" + AtomicFile.temporaryPrefix(of: "other.json") + "Dead02")
      try write("x", to: prefix + "TooLong7")  // not a mkstemp name
      try AtomicFile.write(Array("{\"a\": 2}\n".utf8), to: path, reportedAs: path)
      #expect(
        try FileManager.default.contentsOfDirectory(atPath: dir).sorted() == [
          ".app.json.strata-Empty1", ".app.json.strata-Live01", ".app.json.strata-TooLong7", ".app.json.swp",
          ".other.json.strata-Dead02", "app.json",
        ])
      #expect(try String(contentsOfFile: path, encoding: .utf8) == "{\"a\": 2}\n")
    }
  }
}
