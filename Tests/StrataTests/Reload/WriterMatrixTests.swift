import Foundation
import StrataPlatform
import Synchronization
import Testing

@testable import Strata

/// Every generation a running store publishes, with the values of some keys in it.
///
/// An observer of the store's events (``SettingsStore/observeEvents(_:)``) runs in the store's pipeline
/// as each generation is announced, before the next one is built: reading ``SettingsStore/snapshot``
/// there gives exactly that generation, so none is missed however fast they come (a subscriber of
/// ``SettingsStore/events`` reads the snapshot later, when it may be a newer one).
final class GenerationRecorder: Sendable {
  /// One generation as the service saw it: the values of the keys (`nil`: none, the default applies).
  struct Generation: Sendable, CustomStringConvertible {
    let number: Int
    let keys: [String]
    let values: [String?]

    var description: String {
      "generation \(number): "
        + zip(keys, values).map { "\($0)=\($1 ?? "<none>")" }.joined(separator: " ")
    }
  }

  let keys: [String]

  private struct State {
    var generations: [Int: [String?]] = [:]
    var failures: [String] = []
    var wakes: [Int: AsyncStream<Void>.Continuation] = [:]
    var nextWake = 0
  }

  private let state = Mutex(State())

  /// Starts recording `store`'s generations from its current one.
  init(_ store: SettingsStore, keys: [String]) {
    self.keys = keys
    store.observeEvents { [weak self, weak store] event in
      guard let self, let store else { return }
      self.note(store.snapshot, event: event)
    }
    note(store.snapshot, event: nil)
  }

  /// The values of the keys in `snapshot`.
  func values(in snapshot: Snapshot) -> [String?] {
    keys.map { Self.text(snapshot.value(forKey: $0)) }
  }

  /// Every generation recorded, in order.
  var generations: [Generation] {
    state.withLock { state in
      state.generations.keys.sorted().map {
        Generation(number: $0, keys: keys, values: state.generations[$0]!)
      }
    }
  }

  /// The `failed` events told so far, as text.
  var failures: [String] { state.withLock { $0.failures } }

  /// Waits until `condition` holds, checking it now and after each event of the store, for up to
  /// `seconds` (a deadline, not a sleep); checks it once more at the deadline.
  func wait(within seconds: Double = 30, until condition: @escaping @Sendable () -> Bool) async -> Bool {
    let (stream, continuation) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
    let id = state.withLock { state in
      defer { state.nextWake += 1 }
      state.wakes[state.nextWake] = continuation
      return state.nextWake
    }
    defer {
      _ = state.withLock { $0.wakes.removeValue(forKey: id) }
      continuation.finish()
    }
    if condition() { return true }
    _ = await first(stream, within: seconds) { _ in condition() ? true : nil }
    return condition()
  }

  private func note(_ snapshot: Snapshot, event: StoreEvent?) {
    let values = values(in: snapshot)
    let wakes = state.withLock { state in
      if state.generations[snapshot.generation] == nil { state.generations[snapshot.generation] = values }
      if case .failed(let error)? = event { state.failures.append("\(error)") }
      return Array(state.wakes.values)
    }
    for wake in wakes { wake.yield() }
  }

  /// A value as text (a string as it is, an integer in decimal).
  static func text(_ value: SettingValue?) -> String? {
    guard let value else { return nil }
    switch value.kind {
    case .string(let text): return text
    case .integer(let number): return String(number)
    default: return value.description
    }
  }
}

/// The three keys of ``WatchedSettings``.
let appKeys = ["app.value", "app.count", "app.extra"]

/// Version `n` of the matrix's file: its three keys change together.
func appVersion(_ n: Int) -> String { "[app]\nvalue = v\(n)\ncount = \(n)\nextra = x\(n)\n" }

/// What the store must show for version `n` (``appKeys``).
func appValues(_ n: Int) -> [String?] { ["v\(n)", "\(n)", "x\(n)"] }

/// A store over `layers` (with ``WatchedSettings`` declared), recorded from its first generation, its run
/// loop running (watches set) for the duration of `body`, then stopped.
/// - Parameter grace: how long a vanished file may stay missing before the store drops it; long, so that
///   a file dropped while a test runs is the store's mistake, never a writer slowed down by a busy machine.
func withRecordedStore(
  layers: [any Layer], keys: [String] = appKeys, writeTarget: SettingsStore.WriteTarget = .runtime,
  grace: Duration = .seconds(10),
  _ body: (_ store: SettingsStore, _ recorder: GenerationRecorder) async throws -> Void
) async throws {
  let store = SettingsStore(layers: layers, writeTarget: writeTarget)
  let settings = WatchedSettings(store: store)
  let recorder = GenerationRecorder(store, keys: keys)
  let (ready, readiness) = AsyncStream<Void>.makeStream()
  let running = Task {
    await store.run(watcher: FileWatcher(missingGracePeriod: grace), onReady: { readiness.yield() })
  }
  do {
    // Every layer's watch is set once run() says it is ready (a deadline, not a sleep).
    try #require(await next(ready) != nil, "the store's run loop did not become ready")
    try await body(store, recorder)
  } catch {
    running.cancel()
    await running.value
    throw error
  }
  running.cancel()
  await running.value
  _ = settings
}

/// Records an issue when any generation's values are not one of `allowed`, naming `what` was written,
/// the first bad generations, and every generation (or, when there are many, those around the first bad one).
func expectEveryGeneration(
  _ recorder: GenerationRecorder, in allowed: [[String?]], _ what: String,
  sourceLocation: SourceLocation = #_sourceLocation
) {
  let generations = recorder.generations
  let bad = generations.filter { !allowed.contains($0.values) }
  // Every generation when there are few; else those around the first bad one.
  let first = generations.firstIndex { !allowed.contains($0.values) } ?? 0
  let shown =
    generations.count <= 30
    ? generations[...] : generations[max(0, first - 3)..<min(generations.count, first + 4)]
  #expect(
    bad.count == 0,
    """
    \(what): \(bad.count) of \(generations.count) generations hold values no writer completed, first: \
    \(bad.prefix(5).map(\.description).joined(separator: "; ")); \
    \(shown.count == generations.count ? "every generation" : "around the first"): \
    \(shown.map(\.description).joined(separator: "; "))
    """, sourceLocation: sourceLocation)
}

/// Whether a test needing `tool` should go on: without it the test is skipped with a note (in CI, where
/// `.ci/run` installs it, the test fails instead).
func requireTool(_ tool: String) throws {
  guard !has(tool) else { return }
  if runningInCI {
    Issue.record("\(tool) is not installed (.ci/run installs it)")
  }
  try Test.cancel("\(tool) is not installed")
}

/// Writes all of `text` to `fd`.
func writeAll(_ fd: Int32, _ text: some Collection<UInt8>) throws {
  let bytes = Array(text)
  var written = 0
  while written < bytes.count {
    let count = bytes[written...].withUnsafeBytes { Syscall.write(fd, $0.baseAddress, $0.count) }
    if count < 0 && errno == EINTR { continue }
    guard count > 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
    written += count
  }
}

/// Opens `path` with `flags` (and mode 0644 for a new file), or throws.
func openFile(_ path: String, _ flags: Int32, mode: mode_t = 0o644) throws -> Int32 {
  let fd = open(path, flags | O_CLOEXEC, mode)
  guard fd >= 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
  return fd
}

/// Creates (or replaces the content of) `path` with `text`, synced, in one write.
func writeSynced(_ text: String, to path: String, flags: Int32 = O_CREAT | O_WRONLY | O_TRUNC) throws {
  let fd = try openFile(path, flags)
  defer { close(fd) }
  try writeAll(fd, text.utf8)
  fsync(fd)
}

/// `rename(2)`, or throws.
func renameFile(_ from: String, _ to: String) throws {
  guard rename(from, to) == 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
}

/// kubelet's atomic writer (`pkg/volume/util/atomic_writer.go`), as it updates a ConfigMap or Secret
/// volume: the files go into a new directory `..YYYY_MM_DD_hh_mm_ss.NNNNNNNNN`, a link `..data_tmp` to
/// it is renamed over `..data`, each key is a link `key -> ..data/key` made once, and the previous
/// timestamped directory is deleted. No event ever names a key's file.
struct KubeletAtomicWriter {
  let directory: String
  private var current: String?

  init(directory: String) throws {
    self.directory = directory
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
  }

  /// Publishes `files` (name to content) as the volume's new payload.
  mutating func publish(_ files: [String: String]) throws {
    let name = try newTimestampedDirectory()
    for (file, content) in files { try writeSynced(content, to: directory + "/" + name + "/" + file) }
    let temporary = directory + "/..data_tmp"
    guard symlink(name, temporary) == 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
    try renameFile(temporary, directory + "/..data")
    for file in files.keys.sorted() {
      var info = stat()
      guard lstat(directory + "/" + file, &info) != 0 else { continue }
      guard symlink("..data/" + file, directory + "/" + file) == 0 else {
        throw POSIXError(.init(rawValue: errno) ?? .EIO)
      }
    }
    if let current { try FileManager.default.removeItem(atPath: directory + "/" + current) }
    current = name
  }

  /// Makes `..YYYY_MM_DD_hh_mm_ss.NNNNNNNNN` (UTC, nanoseconds; the next free name if two swaps share
  /// a nanosecond) and returns its name.
  private func newTimestampedDirectory() throws -> String {
    var now = timespec()
    clock_gettime(CLOCK_REALTIME, &now)
    var seconds = now.tv_sec
    var parts = tm()
    gmtime_r(&seconds, &parts)
    func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
    let stamp =
      "..\(parts.tm_year + 1900)_\(two(parts.tm_mon + 1))_\(two(parts.tm_mday))_\(two(parts.tm_hour))_"
      + "\(two(parts.tm_min))_\(two(parts.tm_sec))."
    var nanoseconds = Int(now.tv_nsec)
    while true {
      let digits = String(nanoseconds % 1_000_000_000)
      let name = stamp + String(repeating: "0", count: 9 - digits.count) + digits
      if mkdir(directory + "/" + name, 0o755) == 0 { return name }
      guard errno == EEXIST else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
      nanoseconds += 1
    }
  }
}

/// A writer matrix: a running store over one INI file whose three keys change together, saved version
/// after version by each real-world writer, with short random pauses so that both coalesced bursts and
/// races with the store's reads happen. Every generation the store publishes must hold a version a
/// writer completed (never a default, a half file or a mix of two versions), and the last version must
/// be applied without any further edit.
@Suite(.linuxOnly("inotify, GNU tools, kubelet's volume layout"), .serialized)
struct WriterMatrixTests {
  enum Writer: String, CaseIterable, Sendable {
    /// A temp file in the same directory, renamed over the file.
    case atomicRename
    /// The file renamed to `f~`, a new `f` created, written 50 ms later, closed (vim and emacs's order,
    /// slowed down).
    case renameAwayThenSlowWrite
    /// Truncated, half written, synced, the rest written 30 ms later.
    case truncateThenSlowWrite
    /// Unlinked, then a new file written.
    case deleteThenCreate
    /// Real vim with its defaults (`--clean`: defaults.vim, not vi-compatible), which saves by renaming.
    case vim
    /// `sed -i`.
    case sedInPlace
    /// `perl -pi -e`.
    case perlInPlace
    /// `cp` from a prepared file (in place).
    case cp
    /// `install -m 644` from a prepared file.
    case install
    /// `rsync` with its defaults (a temp file renamed over the file); `-I` so that same-size files
    /// written in the same second are not skipped as unchanged.
    case rsync
    /// `git checkout <tag> -- app.ini`, the tags committed beforehand in a repository whose work tree
    /// holds the file.
    case gitCheckout

    /// The tool the writer runs, if any.
    var tool: String? {
      switch self {
      case .vim: "vim"
      case .sedInPlace: "sed"
      case .perlInPlace: "perl"
      case .cp: "cp"
      case .install: "install"
      case .rsync: "rsync"
      case .gitCheckout: "git"
      default: nil
      }
    }

    /// Saves version `n` of the file.
    func save(_ n: Int, to file: String, prepared: String) async throws {
      let text = appVersion(n)
      let replace = [
        "s/^value = .*/value = v\(n)/", "s/^count = .*/count = \(n)/", "s/^extra = .*/extra = x\(n)/",
      ]
      switch self {
      case .atomicRename:
        let temporary = file + ".tmp\(n)"
        try writeSynced(text, to: temporary, flags: O_CREAT | O_EXCL | O_WRONLY)
        try renameFile(temporary, file)
      case .renameAwayThenSlowWrite:
        try renameFile(file, file + "~")
        let fd = try openFile(file, O_CREAT | O_WRONLY | O_TRUNC)
        do {
          try await Task.sleep(for: .milliseconds(50))
          try writeAll(fd, text.utf8)
        } catch {
          close(fd)
          throw error
        }
        close(fd)
        unlink(file + "~")
      case .truncateThenSlowWrite:
        let fd = try openFile(file, O_WRONLY | O_TRUNC)
        let bytes = Array(text.utf8)
        do {
          try writeAll(fd, bytes[..<(bytes.count / 2)])
          fsync(fd)
          try await Task.sleep(for: .milliseconds(30))
          try writeAll(fd, bytes[(bytes.count / 2)...])
        } catch {
          close(fd)
          throw error
        }
        close(fd)
      case .deleteThenCreate:
        guard unlink(file) == 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
        try writeSynced(text, to: file, flags: O_CREAT | O_EXCL | O_WRONLY)
      case .vim:
        try await shell(Self.vimCommand(n, file))
      case .sedInPlace:
        try await shell("sed -i " + replace.map { "-e '\($0)'" }.joined(separator: " ") + " " + file)
      case .perlInPlace:
        try await shell("perl -pi -e '\(replace.joined(separator: "; "))' " + file)
      case .cp:
        try await shell("cp \(prepared)/v\(n).ini \(file)")
      case .install:
        try await shell("install -m 644 \(prepared)/v\(n).ini \(file)")
      case .rsync:
        try await shell("rsync -I \(prepared)/v\(n).ini \(file)")
      case .gitCheckout:
        try await shell(
          "git checkout -q v\(n) -- app.ini", in: (file as NSString).deletingLastPathComponent)
      }
    }

    /// vim with its defaults, replacing the buffer with version `n` and saving.
    static func vimCommand(_ n: Int, _ file: String) -> String {
      let lines = appVersion(n).split(separator: "\n").map { "'\($0)'" }.joined(separator: ", ")
      return "vim --clean -i NONE -es -c '%d' -c \"call setline(1, [\(lines)])\" -c 'wq' \(file)"
    }
  }

  @Test(arguments: Writer.allCases)
  func everyGenerationIsAVersionAWriterCompleted(_ writer: Writer) async throws {
    if let tool = writer.tool { try requireTool(tool) }
    try await withTemporaryDirectory { dir in
      let etc = dir + "/etc/app"
      let file = etc + "/app.ini"
      let prepared = dir + "/prepared"
      let versions = Int.random(in: 8...15)
      for n in 0...versions { try write(appVersion(n), to: prepared + "/v\(n).ini") }
      try write(appVersion(0), to: file)
      if writer == .gitCheckout {
        try await shell(
          "git init -q && for i in $(seq 1 \(versions)); do cp \(prepared)/v$i.ini app.ini && git add app.ini"
            + " && git -c user.name=t -c user.email=t@t -c commit.gpgsign=false commit -qm v$i"
            + " && git tag v$i; done && cp \(prepared)/v0.ini app.ini", in: etc)
      }
      if writer == .vim { try await expectVimRenames(file, scratch: dir) }
      try await withRecordedStore(layers: [FileLayer(scope: .system, files: [file])]) { store, recorder in
        #expect(recorder.values(in: store.snapshot) == appValues(0))
        for n in 1...versions {
          try await writer.save(n, to: file, prepared: prepared)
          if Bool.random() { try await Task.sleep(for: .milliseconds(Int.random(in: 0...30))) }
        }
        let last = appValues(versions)
        let applied = await recorder.wait { recorder.values(in: store.snapshot) == last }
        #expect(
          applied,
          """
          \(writer): the last version (\(versions)) was not applied without a further edit; the store \
          shows \(recorder.values(in: store.snapshot)); every generation: \
          \(recorder.generations.map(\.description).joined(separator: "; "))
          """)
        expectEveryGeneration(recorder, in: (0...versions).map(appValues), "\(writer), \(versions) versions")
      }
    }
  }

  /// Checks that this vim saves `file` by renaming it (the path the matrix means to test; under /tmp,
  /// `backupskip` makes it write in place), by running it once under strace; skipped, with a note, when
  /// strace is not installed.
  private func expectVimRenames(_ file: String, scratch: String) async throws {
    guard has("strace") else {
      if runningInCI { Issue.record("strace is not installed (.ci/run installs it)") }
      FileHandle.standardError.write(
        Data("note: strace is not installed: vim's rename save is not checked\n".utf8))
      try await shell(Writer.vimCommand(0, file))
      return
    }
    let log = scratch + "/vim.strace"
    try await shell(
      "strace -f -e trace=rename,renameat,renameat2 -o \(log) " + Writer.vimCommand(0, file))
    let trace = try String(contentsOfFile: log, encoding: .utf8)
    // `rename("app.ini", "app.ini~")` (vim names the file as it resolved it, relative or not).
    let name = (file as NSString).lastPathComponent
    #expect(
      trace.split(separator: "\n").contains {
        $0.contains("rename") && $0.contains("\(name)\", ") && $0.contains("\(name)~\"")
      }, "vim did not save \(file) by renaming it:\n\(trace)")
    #expect(try String(contentsOfFile: file, encoding: .utf8) == appVersion(0))
  }

  /// The three shapes a kubelet volume is read in.
  enum Volume: String, CaseIterable, Sendable {
    /// A key per file (``KeyPerFileLayer``): `user`, `password` and `host` all hold the version.
    case keyPerFile
    /// The volume as a drop-in directory holding `50-app.ini`.
    case dropIns
    /// One file, `app.ini`, read through its `..data` link.
    case wholeFile

    func files(_ n: Int) -> [String: String] {
      switch self {
      case .keyPerFile: ["user": "\(n)\n", "password": "\(n)\n", "host": "\(n)\n"]
      case .dropIns: ["50-app.ini": appVersion(n)]
      case .wholeFile: ["app.ini": appVersion(n)]
      }
    }

    var keys: [String] { self == .keyPerFile ? ["app.user", "app.password", "app.host"] : appKeys }

    func values(_ n: Int) -> [String?] { self == .keyPerFile ? ["\(n)", "\(n)", "\(n)"] : appValues(n) }

    func layer(_ volume: String) -> any Layer {
      switch self {
      case .keyPerFile: KeyPerFileLayer(directory: volume, keyPrefix: "app")
      case .dropIns: FileLayer(scope: .system, files: [], dropInDirectory: volume)
      case .wholeFile: FileLayer(scope: .system, files: [volume + "/app.ini"])
      }
    }
  }

  /// kubelet's atomic writer swapping a volume ~200 times in a row (0–2 ms apart: a mixed read is rare,
  /// so many swaps): every generation holds one payload whole.
  @Test(arguments: Volume.allCases)
  func kubeletSwapsAreReadWhole(_ shape: Volume) async throws {
    try await withTemporaryDirectory { dir in
      var writer = try KubeletAtomicWriter(directory: dir + "/volume")
      try writer.publish(shape.files(0))
      let swaps = 200
      try await withRecordedStore(layers: [shape.layer(writer.directory)], keys: shape.keys) {
        store, recorder in
        #expect(recorder.values(in: store.snapshot) == shape.values(0))
        for n in 1...swaps {
          try writer.publish(shape.files(n))
          let pause = Int.random(in: 0...2)
          if pause > 0 { try await Task.sleep(for: .milliseconds(pause)) }
        }
        let last = shape.values(swaps)
        let applied = await recorder.wait { recorder.values(in: store.snapshot) == last }
        #expect(
          applied,
          """
          kubelet, \(shape): the last payload (\(swaps)) was not applied; the store shows \
          \(recorder.values(in: store.snapshot))
          """)
        expectEveryGeneration(recorder, in: (0...swaps).map(shape.values), "kubelet, \(shape)")
      }
    }
  }
}
