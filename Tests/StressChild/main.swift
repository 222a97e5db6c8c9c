// A helper process for the stress tests (Tests/StrataTests/Stress): each mode exercises the library in a
// process of its own, so that the test can kill it, limit it, or measure it alone.
//
//   strata-stress-child write FILE [COUNT]      write records through the store until killed (or COUNT)
//   strata-stress-child soak DIR RELOADS SUBS   reload and subscribe in cycles; print RSS and fd counts
//   strata-stress-child watch FILE              run the store's watcher; print events and values
//   strata-stress-child fallback                read two groups made without a store
import Glibc

/// Writes a line to standard output at once (no buffering: the parent may kill us any time).
func say(_ line: String) {
  var bytes = Array((line + "\n").utf8)[...]
  while !bytes.isEmpty {
    let written = bytes.withUnsafeBytes { Glibc.write(STDOUT_FILENO, $0.baseAddress, $0.count) }
    if written < 0 {
      if errno == EINTR { continue }
      return
    }
    bytes = bytes.dropFirst(written)
  }
}

func usageError() -> Never {
  say(
    "usage: strata-stress-child write FILE [COUNT] | soak DIR RELOADS SUBSCRIPTIONS | watch FILE | fallback")
  exit(2)
}

/// Ends this process once its parent is gone: a test runner killed mid-run (Ctrl-C, a closed pipe) must
/// not leave a writer looping for ever on a shared machine. A thread checks the parent every 100 ms
/// (`PR_SET_PDEATHSIG` would fire when the spawning *thread* ends, and the test's pool threads come and go).
func exitWhenOrphaned() {
  let parent = getppid()
  guard let argument = UnsafeMutableRawPointer(bitPattern: Int(parent)) else { return }
  var thread = pthread_t()
  let started = pthread_create(
    &thread, nil,
    { argument in
      let parent = pid_t(truncatingIfNeeded: Int(bitPattern: argument))
      while getppid() == parent { usleep(100_000) }
      _exit(0)
    }, argument)
  if started == 0 { pthread_detach(thread) }
}

exitWhenOrphaned()
let arguments = Array(CommandLine.arguments.dropFirst())
switch arguments.first {
case "write" where arguments.count >= 2:
  runWriter(file: arguments[1], count: arguments.count > 2 ? Int(arguments[2]) : nil)
case "soak" where arguments.count == 4:
  guard let reloads = Int(arguments[2]), let subscriptions = Int(arguments[3]) else { usageError() }
  await runSoak(directory: arguments[1], reloads: reloads, subscriptions: subscriptions)
case "watch" where arguments.count == 2:
  await runWatcher(file: arguments[1])
case "fallback" where arguments.count == 1:
  runFallback()
default:
  usageError()
}
