// Runs one workload of StrataWorkloads a given number of times, for callgrind:
//   strata-instructions NAME COUNT
// check-instructions.py runs it with --toggle-collect on `measuredRuns`, so that only the operations
// are counted (not the fixture, the runtime's start-up or the process's exit).
import StrataWorkloads

#if canImport(Glibc)
  import Glibc  // exit
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// Where results go so that the optimizer keeps the operations.
nonisolated(unsafe) var sink = 0

/// The measured part: `count` calls of `operation`.
@inline(never)
func measuredRuns(_ operation: () -> Int, count: Int) -> Int {
  var total = 0
  for _ in 0..<count { total &+= operation() }
  return total
}

let arguments = CommandLine.arguments
guard arguments.count == 3, let count = Int(arguments[2]), count > 0 else {
  let names = Workload.all.map(\.name).joined(separator: ", ")
  print("usage: strata-instructions NAME COUNT   (NAME: \(names))")
  exit(2)
}
guard let workload = Workload.named(arguments[1]) else {
  let names = Workload.all.map(\.name).joined(separator: ", ")
  print("error: no workload named '\(arguments[1])'; the workloads are \(names)")
  exit(2)
}
let operation = workload.prepare()
sink &+= operation()  // one warm-up run: lazily built tables and first-use caches are not counted
sink &+= measuredRuns(operation, count: count)
print("\(workload.name): \(count) runs, result \(sink)")
