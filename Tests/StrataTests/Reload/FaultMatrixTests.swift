import Foundation
import StrataPlatform
import Testing

@testable import Strata

/// The files of the fault matrix: a main file whose two keys change together (`value = mN`,
/// `count = N`) and a drop-in that sets the third (`extra = dN`), under `dir/etc/app`.
struct FaultFiles {
  let dir: String
  var etc: String { dir + "/etc/app" }
  var main: String { etc + "/app.ini" }
  var dropIns: String { etc + "/app.conf.d" }
  var dropIn: String { dropIns + "/50-x.ini" }
  var user: String { dir + "/home/app.ini" }

  static func mainText(_ n: Int) -> String { "[app]\nvalue = m\(n)\ncount = \(n)\n" }
  static func dropInText(_ n: Int) -> String { "[app]\nextra = d\(n)\n" }

  /// What the store must show with main file `main` and extra `extra` (``appKeys``).
  static func values(main: Int, extra: String) -> [String?] { ["m\(main)", "\(main)", extra] }

  /// Every state made of main files `mains` and extras `extras`: the keys of one main file change
  /// together, and none is ever missing.
  static func allowed(mains: [Int], extras: [String]) -> [[String?]] {
    mains.flatMap { main in extras.map { values(main: main, extra: $0) } }
  }

  /// Writes version 1 of both files, every directory 0755 and file 0644 (another user can read them).
  init(in dir: String) throws {
    self.dir = dir
    try write(Self.mainText(1), to: main)
    try write(Self.dropInText(1), to: dropIn)
    for path in [dir, dir + "/etc", etc, dropIns] { chmod(path, 0o755) }
    for path in [main, dropIn] { chmod(path, 0o644) }
  }

  /// The system layer (main file and drop-ins, safe permissions required) and a user layer.
  var layers: [any Layer] {
    [
      FileLayer(scope: .system, files: [main], dropInDirectory: dropIns),
      FileLayer(scope: .user, files: [user]),
    ]
  }

  /// Replaces `path` with `text` as an atomic save does (a hidden temp file in the same directory,
  /// synced, renamed over it), the new file having `mode`.
  static func replace(_ path: String, with text: String, mode: mode_t = 0o644) throws {
    let directory = (path as NSString).deletingLastPathComponent
    let temporary = directory + "/." + (path as NSString).lastPathComponent + ".new"
    let fd = try openFile(temporary, O_CREAT | O_EXCL | O_WRONLY, mode: mode)
    do {
      try writeAll(fd, text.utf8)
      fsync(fd)
    } catch {
      close(fd)
      throw error
    }
    close(fd)
    fchmodat(AT_FDCWD, temporary, mode, 0)  // the umask may have taken bits off
    try renameFile(temporary, path)
  }
}

/// A store running in a process of its own (`strata-stress-child generations`, see
/// Tests/StressChild/Generations.swift), for faults this test process cannot suffer honestly: a
/// permission root ignores (the child runs as `nobody` when the tests run as root), or running out of
/// descriptors (the child's limit is lowered with `prlimit`, which touches no other test). The child
/// prints every generation as its pipeline announces it.
final class GenerationChild {
  let process: ChildProcess

  /// One generation the child printed.
  struct Generation: CustomStringConvertible {
    let number: Int
    let values: [String?]
    let line: String
    var description: String { line }
  }

  init(_ files: FaultFiles, asNobody: Bool) throws {
    let arguments = ["generations", files.main, files.dropIns]
    process =
      asNobody
      ? try ChildProcess(
        "/usr/bin/setpriv",
        ["--reuid=65534", "--regid=65534", "--clear-groups", "--", stressChildPath] + arguments)
      : try ChildProcess(stressChildPath, arguments)
  }

  private var lines: [Substring] { process.outputSoFar.split(separator: "\n") }

  /// Every generation printed so far, in order.
  var generations: [Generation] {
    lines.compactMap { line in
      let words = line.split(separator: " ")
      guard words.count == 5, words[0] == "gen", let number = Int(words[1]) else { return nil }
      let values = ["value=", "count=", "extra="].enumerated().map { index, name -> String? in
        let word = words[2 + index]
        guard word.hasPrefix(name), word != name + "-" else { return nil }
        return String(word.dropFirst(name.count))
      }
      return Generation(number: number, values: values, line: String(line))
    }
  }

  /// The `failed` events printed so far.
  var failures: [String] { lines.filter { $0.hasPrefix("failed ") }.map(String.init) }

  /// The values of the latest generation.
  var current: [String?]? { generations.last?.values }

  /// Waits until `condition` holds, checking it now and after each line the child prints, for up to
  /// `seconds` (a deadline, not a sleep); checks it once more at the deadline.
  func wait(within seconds: Double = 30, until condition: () -> Bool) async -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while !condition() {
      let remaining = deadline.timeIntervalSinceNow
      guard remaining > 0, await process.readLine(within: remaining) != nil else { return condition() }
    }
    return true
  }

  /// Kills the child and reaps it.
  func stop() async {
    process.send(SIGKILL)
    await process.wait(within: 30)
  }
}

/// A fault matrix: a running store over a main file and a drop-in, and a fault that lasts a moment (a
/// directory that cannot be listed or is unsafe, a file that cannot be read, no descriptors left, a file
/// renamed away while something else makes the store read). Every generation is recorded as in the
/// writer matrix: no key may leave (never a default), and the latest state on disk must be applied once
/// the fault clears, without another edit.
@Suite(.linuxOnly("inotify, setpriv, prlimit, /proc"), .serialized)
struct FaultMatrixTests {
  /// Runs the permission faults' child as `nobody` when the tests run as root (for whom a mode of 000
  /// changes nothing), as the test's own user otherwise; skips when neither can be done.
  private func childForPermissionFaults(_ files: FaultFiles) throws -> GenerationChild {
    if geteuid() == 0 {
      try requireTool("setpriv")
      return try GenerationChild(files, asNobody: true)
    }
    return try GenerationChild(files, asNobody: false)
  }

  private func expectStarted(_ child: GenerationChild) async {
    let started = await child.wait {
      child.process.transcript.contains("ready\n") && child.current == FaultFiles.values(main: 1, extra: "d1")
    }
    #expect(started, "the child did not start with version 1: \(child.process.transcript)")
  }

  private func expectNoKeyLeft(
    _ child: GenerationChild, _ allowed: [[String?]], _ what: String,
    sourceLocation: SourceLocation = #_sourceLocation
  ) {
    let generations = child.generations
    let bad = generations.filter { !allowed.contains($0.values) }
    #expect(
      bad.isEmpty,
      """
      \(what): \(bad.count) of \(generations.count) generations lost a key or mixed two versions, first: \
      \(bad.prefix(5).map(\.line).joined(separator: "; ")); the child printed:
      \(child.process.transcript)
      """, sourceLocation: sourceLocation)
  }

  /// The drop-in directory cannot be listed for a moment (mode 000, for a service that is not root)
  /// while the main file and the drop-in are edited; the directory's mode is then put back, which is no
  /// edit of any file.
  @Test func aDropInDirectoryUnlistableForAMoment() async throws {
    try await withTemporaryDirectory { dir in
      let files = try FaultFiles(in: dir)
      let child = try childForPermissionFaults(files)
      await expectStarted(child)
      #expect(chmod(files.dropIns, 0) == 0)
      try FaultFiles.replace(files.dropIn, with: FaultFiles.dropInText(2))
      try FaultFiles.replace(files.main, with: FaultFiles.mainText(2))
      // The main file is readable: its edit is read, with the directory's listing refused.
      let read = await child.wait { child.generations.contains { $0.values.first == "m2" } }
      chmod(files.dropIns, 0o755)
      #expect(read, "the main file's edit was not read while the drop-in directory was unlistable")
      #expect(
        child.failures.contains { $0.contains(files.dropIns) },
        "no failure named the unlistable drop-in directory (did the fault happen?): \(child.process.transcript)"
      )
      let applied = await child.wait { child.current == FaultFiles.values(main: 2, extra: "d2") }
      #expect(
        applied,
        "the drop-in's edit was not applied once the directory could be listed again: \(child.process.transcript)"
      )
      expectNoKeyLeft(child, FaultFiles.allowed(mains: [1, 2], extras: ["d1", "d2"]), "unlistable drop-ins")
      await child.stop()
    }
  }

  /// The drop-in directory is writable by others for a moment (mode 0777: the system layer requires safe
  /// permissions) while the drop-in and the main file are edited; then its mode is put back.
  @Test func aDropInDirectoryWritableByOthersForAMoment() async throws {
    try await withTemporaryDirectory { dir in
      let files = try FaultFiles(in: dir)
      try await withRecordedStore(layers: files.layers) { store, recorder in
        #expect(recorder.values(in: store.snapshot) == FaultFiles.values(main: 1, extra: "d1"))
        #expect(chmod(files.dropIns, 0o777) == 0)
        try FaultFiles.replace(files.dropIn, with: FaultFiles.dropInText(2))
        try FaultFiles.replace(files.main, with: FaultFiles.mainText(2))
        let read = await recorder.wait { recorder.values(in: store.snapshot).first == "m2" }
        chmod(files.dropIns, 0o755)
        #expect(read, "the main file's edit was not read while the drop-in directory was unsafe")
        let applied = await recorder.wait {
          recorder.values(in: store.snapshot) == FaultFiles.values(main: 2, extra: "d2")
        }
        #expect(
          applied,
          """
          the drop-in's edit was not applied once the directory was safe again; the store shows \
          \(recorder.values(in: store.snapshot))
          """)
        expectEveryGeneration(
          recorder, in: FaultFiles.allowed(mains: [1, 2], extras: ["d1", "d2"]), "drop-ins writable by others"
        )
      }
    }
  }

  /// The main file cannot be read for a moment (its new version arrives with mode 000, for a service
  /// that is not root) while the drop-in is edited; then its mode is put back, which is no edit.
  @Test func aFileUnreadableForAMoment() async throws {
    try await withTemporaryDirectory { dir in
      let files = try FaultFiles(in: dir)
      let child = try childForPermissionFaults(files)
      await expectStarted(child)
      try FaultFiles.replace(files.main, with: FaultFiles.mainText(2), mode: 0)
      let refused = await child.wait { child.failures.contains { $0.contains(files.main) } }
      #expect(
        refused,
        "no failure named the unreadable main file (did the fault happen?): \(child.process.transcript)")
      // A reload while the main file is still unreadable: the drop-in's edit is read, the main file's
      // keys stay.
      try FaultFiles.replace(files.dropIn, with: FaultFiles.dropInText(2))
      let read = await child.wait { child.generations.contains { $0.values.last == "d2" } }
      chmod(files.main, 0o644)
      #expect(read, "the drop-in's edit was not read while the main file was unreadable")
      let applied = await child.wait { child.current == FaultFiles.values(main: 2, extra: "d2") }
      #expect(
        applied, "the main file was not applied once it could be read again: \(child.process.transcript)")
      expectNoKeyLeft(child, FaultFiles.allowed(mains: [1, 2], extras: ["d1", "d2"]), "an unreadable file")
      await child.stop()
    }
  }

  /// The service runs out of descriptors (its soft `RLIMIT_NOFILE` lowered, by `prlimit`, to its lowest
  /// free descriptor) while the main file is replaced; once the store has reported the failure the limit
  /// is raised again, which no file event tells.
  @Test func outOfDescriptorsForAMoment() async throws {
    try requireTool("prlimit")
    try await withTemporaryDirectory { dir in
      let files = try FaultFiles(in: dir)
      let child = try GenerationChild(files, asNobody: false)
      await expectStarted(child)
      var limit = rlimit()
      #if os(Linux)
        getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit)
      #else
        getrlimit(RLIMIT_NOFILE, &limit)
      #endif
      let openDescriptors = Set(
        try FileManager.default.contentsOfDirectory(atPath: "/proc/\(child.process.pid)/fd").compactMap {
          Int($0)
        })
      let lowestFree = (0...).first { !openDescriptors.contains($0) }!
      let lowered = try await Spawn.run(
        "/usr/bin/prlimit", ["--pid", "\(child.process.pid)", "--nofile=\(lowestFree):\(limit.rlim_max)"])
      #expect(lowered.status == 0, "prlimit: \(lowered.errors)")
      let failuresBefore = child.failures.count
      try FaultFiles.replace(files.main, with: FaultFiles.mainText(2))
      let failed = await child.wait { child.failures.count > failuresBefore }
      let raised = try await Spawn.run(
        "/usr/bin/prlimit",
        ["--pid", "\(child.process.pid)", "--nofile=\(limit.rlim_cur):\(limit.rlim_max)"])
      #expect(raised.status == 0, "prlimit: \(raised.errors)")
      #expect(failed, "the store reported no failure while out of descriptors: \(child.process.transcript)")
      let applied = await child.wait { child.current == FaultFiles.values(main: 2, extra: "d1") }
      #expect(
        applied,
        "the main file was not applied once descriptors were available again: \(child.process.transcript)")
      expectNoKeyLeft(child, FaultFiles.allowed(mains: [1, 2], extras: ["d1"]), "out of descriptors")
      await child.stop()
    }
  }

  /// A reload request (`SIGHUP`, `store.reload()`) while the main file is renamed away, mid-save; the
  /// file is then written back with a new version.
  @Test func aFileVanishedDuringAReloadRequest() async throws {
    try await withTemporaryDirectory { dir in
      let files = try FaultFiles(in: dir)
      try await withRecordedStore(layers: files.layers) { store, recorder in
        try renameFile(files.main, files.main + "~")
        await store.reload()
        try FaultFiles.replace(files.main, with: FaultFiles.mainText(2))
        unlink(files.main + "~")
        let applied = await recorder.wait {
          recorder.values(in: store.snapshot) == FaultFiles.values(main: 2, extra: "d1")
        }
        #expect(
          applied, "the new main file was not applied; the store shows \(recorder.values(in: store.snapshot))"
        )
        expectEveryGeneration(
          recorder, in: FaultFiles.allowed(mains: [1, 2], extras: ["d1"]), "a reload request mid-save")
      }
    }
  }

  enum OverrideTarget: String, CaseIterable, Sendable {
    /// `saveValue` writing the user's file.
    case userFile
    /// `saveValue` on a store that writes to its runtime layer (an override in memory).
    case runtime
  }

  /// A value set (`store.saveValue`) while the main file is renamed away, mid-save; the file is then
  /// written back with a new version.
  @Test(arguments: OverrideTarget.allCases)
  func aFileVanishedDuringAnOverride(_ target: OverrideTarget) async throws {
    try await withTemporaryDirectory { dir in
      let files = try FaultFiles(in: dir)
      let writeTarget: SettingsStore.WriteTarget = target == .userFile ? .file(files.user) : .runtime
      try await withRecordedStore(layers: files.layers, writeTarget: writeTarget) { store, recorder in
        try renameFile(files.main, files.main + "~")
        try await store.saveValue("o1", forKey: "app.extra")
        try FaultFiles.replace(files.main, with: FaultFiles.mainText(2))
        unlink(files.main + "~")
        let applied = await recorder.wait {
          recorder.values(in: store.snapshot) == FaultFiles.values(main: 2, extra: "o1")
        }
        #expect(
          applied, "the new main file was not applied; the store shows \(recorder.values(in: store.snapshot))"
        )
        expectEveryGeneration(
          recorder, in: FaultFiles.allowed(mains: [1, 2], extras: ["d1", "o1"]),
          "an override (\(target)) mid-save")
      }
    }
  }

  /// A drop-in written while the main file is renamed away, mid-save: the store reads the layer for the
  /// drop-in; the main file is then written back with a new version.
  @Test func aFileVanishedDuringADropInEdit() async throws {
    try await withTemporaryDirectory { dir in
      let files = try FaultFiles(in: dir)
      try await withRecordedStore(layers: files.layers) { store, recorder in
        try renameFile(files.main, files.main + "~")
        try FaultFiles.replace(files.dropIn, with: FaultFiles.dropInText(2))
        let read = await recorder.wait { recorder.values(in: store.snapshot).last == "d2" }
        #expect(read, "the drop-in's edit was not read while the main file was renamed away")
        try FaultFiles.replace(files.main, with: FaultFiles.mainText(2))
        unlink(files.main + "~")
        let applied = await recorder.wait {
          recorder.values(in: store.snapshot) == FaultFiles.values(main: 2, extra: "d2")
        }
        #expect(
          applied, "the new main file was not applied; the store shows \(recorder.values(in: store.snapshot))"
        )
        expectEveryGeneration(
          recorder, in: FaultFiles.allowed(mains: [1, 2], extras: ["d1", "d2"]), "a drop-in edit mid-save")
      }
    }
  }
}
