import Glibc

/// What a child process did: its exit status, its output, wall time and peak resident set size.
struct ProcessRun {
  var status: Int32
  var output: String
  var wallTime: Duration
  /// `ru_maxrss` from wait4, in bytes.
  var maxResidentBytes: Int
}

/// Runs a program (looked up in PATH when `path` has no slash) with posix_spawn, waits for it with
/// wait4, and returns its status, standard output (when `captureOutput`), wall time and peak RSS.
/// Standard error is kept; standard output goes to /dev/null unless captured.
func spawnAndWait(_ path: String, _ arguments: [String], captureOutput: Bool = false) -> ProcessRun {
  var actions = posix_spawn_file_actions_t()
  posix_spawn_file_actions_init(&actions)
  defer { posix_spawn_file_actions_destroy(&actions) }
  var pipeEnds: [Int32] = [-1, -1]
  if captureOutput {
    precondition(pipe(&pipeEnds) == 0, "pipe failed")
    posix_spawn_file_actions_adddup2(&actions, pipeEnds[1], STDOUT_FILENO)
    posix_spawn_file_actions_addclose(&actions, pipeEnds[0])
    posix_spawn_file_actions_addclose(&actions, pipeEnds[1])
  } else {
    posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0)
  }
  let argv: [UnsafeMutablePointer<CChar>?] = ([path] + arguments).map { strdup($0) } + [nil]
  defer { for pointer in argv { free(pointer) } }
  let clock = ContinuousClock()
  let start = clock.now
  var pid: pid_t = 0
  let spawned =
    path.contains("/")
    ? posix_spawn(&pid, path, &actions, nil, argv, environ)
    : posix_spawnp(&pid, path, &actions, nil, argv, environ)
  guard spawned == 0 else {
    if captureOutput {
      close(pipeEnds[0])
      close(pipeEnds[1])
    }
    return ProcessRun(
      status: -1, output: "spawn \(path): \(String(cString: strerror(spawned)))", wallTime: .zero,
      maxResidentBytes: 0)
  }
  var output: [UInt8] = []
  if captureOutput {
    close(pipeEnds[1])
    var buffer = [UInt8](repeating: 0, count: 65_536)
    while true {
      let count = buffer.withUnsafeMutableBytes { read(pipeEnds[0], $0.baseAddress, $0.count) }
      if count < 0 && errno == EINTR { continue }
      if count <= 0 { break }
      output += buffer[0..<count]
    }
    close(pipeEnds[0])
  }
  var status: Int32 = 0
  var usage = rusage()
  while wait4(pid, &status, 0, &usage) < 0 && errno == EINTR {}
  let wall = clock.now - start
  let exitStatus = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
  return ProcessRun(
    status: exitStatus, output: String(decoding: output, as: UTF8.self), wallTime: wall,
    maxResidentBytes: Int(usage.ru_maxrss) * 1024)
}
