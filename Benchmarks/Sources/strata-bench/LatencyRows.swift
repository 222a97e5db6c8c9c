import Glibc
import Strata

/// Rows 6: how long an edit takes to reach a program. The same rename() of an edited JSON file, timed to
/// three readers in turn: `inotifywait -m` printing the event (the floor: the kernel's event reaching a
/// process's stdout), `config-dump --watch` printing its JSON line, and a typed stream in this process.
func latencyRows(_ options: Options) async -> [Row] {
  let edits = options.quick ? 100 : 500
  let directory = makeTemporaryDirectory("latency")
  defer { removeTree(directory) }
  let path = "\(directory)/app.json"
  writeFile(path, latencyJSON(port: 1))
  var rows: [Row] = []

  printError("latency: inotifywait -m, \(edits) edits")
  // stdbuf: inotifywait's stdout is a pipe here, which stdio would buffer; a line per event is the floor.
  let floor = watchLines(
    "stdbuf", ["-oL", "inotifywait", "-m", "-q", "-e", "moved_to", "--format", "%f %e", directory],
    path: path,
    edits: edits,
    firstPort: 1_000, expected: { _ in "app.json MOVED_TO" })
  printError("latency: config-dump --watch, \(edits) edits")
  let dump = releaseConfigDump(options).flatMap { binary in
    watchLines(
      binary, ["--watch", "--format", "json", path], path: path, edits: edits, firstPort: 10_000,
      expected: { #""new": \#($0), ""# })
  }
  printError("latency: in-process typed stream, \(edits) edits")
  let inProcess = await streamLatencies(path: path, edits: edits, firstPort: 100_000)

  func cells(_ latencies: [Double]?) -> String {
    guard let latencies, !latencies.isEmpty else { return "not measured (see stderr)" }
    return "p50 \(format(percentile(latencies, 50), decimals: 3)) / p99 "
      + "\(format(percentile(latencies, 99), decimals: 3)) ms (\(latencies.count) edits)"
  }
  let floorP50 = floor.map { percentile($0, 50) } ?? .nan
  let dumpP50 = dump.map { percentile($0, 50) } ?? .nan
  rows.append(
    Row(
      name: "6. latency: rename() → a line from `config-dump --watch` (theirs: `inotifywait -m`, the floor)",
      ours: cells(dump), theirs: cells(floor),
      ratio: dumpP50.isNaN || floorP50.isNaN ? "—" : "\(format(dumpP50 / floorP50, decimals: 1))× the floor",
      target: "p50 ≤ 2× the floor", met: yesNo(dumpP50 <= 2 * floorP50)))
  let streamP50 = inProcess.isEmpty ? .infinity : percentile(inProcess, 50)
  let streamP99 = inProcess.isEmpty ? .infinity : percentile(inProcess, 99)
  rows.append(
    Row(
      name: "6. latency: rename() → the value on a typed stream, in-process (theirs: `inotifywait -m`)",
      ours: cells(inProcess), theirs: cells(floor),
      ratio: floorP50.isNaN ? "—" : "\(format(streamP50 / floorP50, decimals: 1))× the floor",
      target: "p50 ≤ 0.1 ms, p99 ≤ 0.5 ms", met: yesNo(streamP50 <= 0.1 && streamP99 <= 0.5)))
  return rows
}

/// The edited file: one port.
private func latencyJSON(port: Int) -> String { #"{"server": {"port": \#(port)}}"# + "\n" }

/// Starts `program` with its stdout on a pipe, waits until a first edit is seen (the watches are set),
/// then times `edits` renames of `path` each to the line that shows it (`expected(port)`); kills and
/// reaps the program. `nil` when it cannot be started or never shows an edit.
private func watchLines(
  _ program: String, _ arguments: [String], path: String, edits: Int, firstPort: Int,
  expected: (Int) -> String
) -> [Double]? {
  guard let child = LineChild(program, arguments) else {
    printError("latency: cannot start \(program)")
    return nil
  }
  defer { child.stop() }
  // Readiness: edit until a line shows the edit (the watch is set up some time after the start).
  var port = firstPort
  var ready = false
  for _ in 0..<100 where !ready {
    port += 1
    _ = replaceFile(path, latencyJSON(port: port))
    ready = child.waitForLine(containing: expected(port), within: .milliseconds(300)) != nil
  }
  guard ready else {
    printError("latency: \(program) showed no edit")
    return nil
  }
  var missed = 0
  var latencies: [Double] = []
  for _ in 0..<edits {
    port += 1
    let start = replaceFile(path, latencyJSON(port: port))
    if let seen = child.waitForLine(containing: expected(port), within: .seconds(2)) {
      latencies.append((seen - start).nanoseconds / 1e6)
    } else {
      missed += 1
    }
  }
  if missed > 0 { printError("latency: \(program) missed \(missed) of \(edits) edits") }
  return latencies
}

/// The in-process reader: a store over the file, watching, and a typed setting's stream.
private func streamLatencies(path: String, edits: Int, firstPort: Int) async -> [Double] {
  writeFile(path, latencyJSON(port: firstPort))
  let store = SettingsStore(layers: [FileLayer(scope: .user, files: [path])])
  let server = ServerSettings(store: store)
  let (ready, readyContinuation) = AsyncStream<Void>.makeStream()
  let watching = Task.detached { await store.run(onReady: { readyContinuation.yield() }) }
  for await _ in ready { break }
  let (arrivals, arrival) = AsyncStream<(Int, ContinuousClock.Instant)>.makeStream()
  let changes = server.$port.changes
  let listening = Task.detached {
    for await port in changes { arrival.yield((port, .now)) }
  }
  var iterator = arrivals.makeAsyncIterator()
  var latencies: [Double] = []
  for edit in 1...edits {
    let port = firstPort + edit
    let start = replaceFile(path, latencyJSON(port: port))
    while let (value, at) = await iterator.next() {
      if value == port {
        latencies.append((at - start).nanoseconds / 1e6)
        break
      }
    }
  }
  watching.cancel()
  await watching.value
  listening.cancel()
  store.shutdown()
  return latencies
}

/// A child process whose standard output is read line by line, with the instant each chunk arrived.
private final class LineChild {
  let pid: pid_t
  let output: Int32
  private var pending: [UInt8] = []

  init?(_ program: String, _ arguments: [String]) {
    var ends: [Int32] = [-1, -1]
    guard pipe(&ends) == 0 else { return nil }
    _ = fcntl(ends[0], F_SETFD, FD_CLOEXEC)
    _ = fcntl(ends[1], F_SETFD, FD_CLOEXEC)
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_adddup2(&actions, ends[1], STDOUT_FILENO)
    posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0)
    let argv: [UnsafeMutablePointer<CChar>?] = ([program] + arguments).map { strdup($0) } + [nil]
    defer { for pointer in argv { free(pointer) } }
    // A clean signal mask and default dispositions: a thread of this process may block SIGTERM, and a
    // child that inherited that would outlive stop().
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    var empty = sigset_t()
    sigemptyset(&empty)
    var all = sigset_t()
    sigfillset(&all)
    posix_spawnattr_setsigmask(&attributes, &empty)
    posix_spawnattr_setsigdefault(&attributes, &all)
    posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
    var pid: pid_t = 0
    let spawned = posix_spawnp(&pid, program, &actions, &attributes, argv, environ)
    close(ends[1])
    guard spawned == 0 else {
      close(ends[0])
      return nil
    }
    self.pid = pid
    output = ends[0]
  }

  /// The instant a line containing `text` was read, or `nil` after `timeout` (or at end of output).
  func waitForLine(containing text: String, within timeout: Duration) -> ContinuousClock.Instant? {
    let deadline = ContinuousClock.now + timeout
    let needle = Array(text.utf8)
    var buffer = [UInt8](repeating: 0, count: 65_536)
    while true {
      while let newline = pending.firstIndex(of: 10) {
        let line = pending[..<newline]
        pending.removeSubrange(...newline)
        if line.firstRange(of: needle) != nil { return .now }
      }
      let left = deadline - .now
      guard left > .zero else { return nil }
      var descriptor = pollfd(fd: output, events: Int16(POLLIN), revents: 0)
      let ready = poll(&descriptor, 1, Int32(max(1, left.nanoseconds / 1e6)))
      if ready < 0 && errno == EINTR { continue }
      guard ready > 0 else { return nil }
      let count = buffer.withUnsafeMutableBytes { read(output, $0.baseAddress, $0.count) }
      guard count > 0 else { return nil }
      pending += buffer[..<count]
    }
  }

  /// Ends the child and reaps it.
  func stop() {
    kill(pid, SIGTERM)
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    close(output)
  }
}
