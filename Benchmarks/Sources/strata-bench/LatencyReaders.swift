import Glibc
import Strata

/// A reader of the latency rows, started and ready: each edit is timed from just before its rename()
/// to the reader having it.
protocol TimedReader {
  /// Replaces the edited file with `port` in it; milliseconds until the reader has the edit, or `nil`
  /// when it did not within 2 s.
  func time(edit port: Int) async -> Double?
  /// Ends the reader (a child is killed and reaped).
  func stop() async
}

/// A program printing a line per edit (`inotifywait -m`, `config-dump --watch`), its output on a pipe.
final class LineReader: TimedReader {
  private let child: LineChild
  private let layout: EditLayout
  private let line: (Int) -> String

  /// Starts `program` and edits until a line shows an edit (its watch is set some time after the
  /// start); `nil` when it cannot be started or shows no edit (the child is then stopped).
  init?(
    _ program: String, _ arguments: [String], environment: [String: String] = [:], layout: EditLayout,
    firstPort: Int, line: @escaping (Int) -> String
  ) {
    guard let child = LineChild(program, arguments, environment: environment) else {
      printError("latency: cannot start \(program)")
      return nil
    }
    var port = firstPort
    var ready = false
    for _ in 0..<100 where !ready {
      port += 1
      _ = replaceFile(layout.editedPath, layout.contents(port))
      ready = child.waitForLine(containing: line(port), within: .milliseconds(300)) != nil
    }
    guard ready else {
      printError("latency: \(program) showed no edit")
      child.stop()
      return nil
    }
    self.child = child
    self.layout = layout
    self.line = line
  }

  func time(edit port: Int) async -> Double? {
    let start = replaceFile(layout.editedPath, layout.contents(port))
    return child.waitForLine(containing: line(port), within: .seconds(2)).map {
      ($0 - start).nanoseconds / 1e6
    }
  }

  func stop() async { child.stop() }
}

/// The in-process reader: the layout's store, watching (`store.run()`), and `$port.changes` of a
/// declared group iterated by a task.
final class StreamReader: TimedReader {
  private let layout: EditLayout
  private let store: SettingsStore
  private let watching: Task<Void, Never>
  private let listening: Task<Void, Never>
  private let ticking: Task<Void, Never>
  /// The ports the stream delivered, with the instant; a tick (`nil`) every 500 ms bounds a wait.
  private let arrivals: AsyncStream<(port: Int?, at: ContinuousClock.Instant)>
  private var iterator: AsyncStream<(port: Int?, at: ContinuousClock.Instant)>.Iterator

  /// Makes the store and waits until it watches.
  init(layout: EditLayout) async {
    self.layout = layout
    let store = layout.makeStore()
    self.store = store
    let server = ServerSettings(store: store)
    let (ready, readyContinuation) = AsyncStream<Void>.makeStream()
    watching = Task.detached { await store.run(onReady: { readyContinuation.yield() }) }
    for await _ in ready { break }
    let (arrivals, arrival) = AsyncStream<(port: Int?, at: ContinuousClock.Instant)>.makeStream()
    let changes = server.$port.changes
    listening = Task.detached {
      for await port in changes { arrival.yield((port, .now)) }
      _ = server  // the group lives as long as its stream is read
    }
    ticking = Task.detached {
      while !Task.isCancelled {
        try? await Task.sleep(for: .milliseconds(500))
        arrival.yield((nil, .now))
      }
    }
    self.arrivals = arrivals
    iterator = arrivals.makeAsyncIterator()
  }

  func time(edit port: Int) async -> Double? {
    let start = replaceFile(layout.editedPath, layout.contents(port))
    var ticks = 0
    while ticks < 5, let (value, at) = await iterator.next() {
      if value == port { return (at - start).nanoseconds / 1e6 }
      if value == nil { ticks += 1 }
    }
    return nil
  }

  func stop() async {
    watching.cancel()
    await watching.value
    ticking.cancel()
    store.shutdown()
    await listening.value
    await ticking.value
  }
}

/// A child process whose standard output is read line by line, with the instant each chunk arrived.
final class LineChild {
  let pid: pid_t
  let output: Int32
  private var pending: [UInt8] = []

  /// Starts `program` (looked up in `PATH`) with `environment` added to this process's, its standard
  /// output on a pipe and its standard error to /dev/null; `nil` when it cannot be started.
  init?(_ program: String, _ arguments: [String], environment: [String: String] = [:]) {
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
    var variables: [String] = []
    var entry = environ
    while let pointer = entry.pointee {
      let variable = String(cString: pointer)
      let name = variable.split(separator: "=", maxSplits: 1).first.map(String.init) ?? variable
      if environment[name] == nil { variables.append(variable) }
      entry += 1
    }
    variables += environment.map { "\($0.key)=\($0.value)" }
    let envp: [UnsafeMutablePointer<CChar>?] = variables.map { strdup($0) } + [nil]
    defer { for pointer in envp { free(pointer) } }
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
    let spawned = posix_spawnp(&pid, program, &actions, &attributes, argv, envp)
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

  /// Ends the child and reaps it: SIGTERM, then SIGKILL if it has not exited within a second.
  func stop() {
    kill(pid, SIGTERM)
    var status: Int32 = 0
    var reaped = false
    for _ in 0..<100 where !reaped {
      let result = waitpid(pid, &status, WNOHANG)
      reaped = result == pid || (result < 0 && errno != EINTR)
      if !reaped { usleep(10_000) }
    }
    if !reaped {
      kill(pid, SIGKILL)
      while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    }
    close(output)
  }
}
