// A helper process for the stress tests (Tests/StrataTests/Stress): each mode exercises the library in a
// process of its own, so that the test can kill it, limit it, or measure it alone.
//
//   strata-stress-child write FILE [COUNT]      write records through the store until killed (or COUNT)
//   strata-stress-child soak DIR RELOADS SUBS   reload and subscribe in cycles; print RSS and fd counts
//   strata-stress-child watch FILE              run the store's watcher; print events and values
//   strata-stress-child fallback                read two groups made without a store
//   strata-stress-child close-from [fallback]   close descriptors from one up; print which are open
//   strata-stress-child control DIR             serve a store's control socket with a clock moved by the test
//   strata-stress-child generations FILE DIR    run a store over FILE and drop-ins DIR; print every generation
import StrataPlatform

/// Writes a line to standard output at once (no buffering: the parent may kill us any time).
func say(_ line: String) {
  Syscall.writeAll(STDOUT_FILENO, line + "\n")
}

func usageError() -> Never {
  say(
    "usage: strata-stress-child write FILE [COUNT] | soak DIR RELOADS SUBSCRIPTIONS | watch FILE | fallback"
      + " | close-from [fallback] | control DIR | generations FILE DROPINS")
  exit(2)
}

/// Ends this process once its parent is gone: a test runner killed mid-run (Ctrl-C, a closed pipe) must
/// not leave a writer looping for ever on a shared machine. A thread checks the parent every 100 ms
/// (`PR_SET_PDEATHSIG` would fire when the spawning *thread* ends, and the test's pool threads come and go).
func exitWhenOrphaned() {
  let parent = getppid()
  _ = DetachedThread.start {
    while getppid() == parent { usleep(100_000) }
    _exit(0)
  }
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
case "close-from" where arguments.count <= 2:
  runCloseFrom(fallback: arguments.count == 2 && arguments[1] == "fallback")
case "control" where arguments.count == 2:
  await runControl(directory: arguments[1])
case "generations" where arguments.count == 3:
  await runGenerations(file: arguments[1], dropIns: arguments[2])
default:
  usageError()
}
