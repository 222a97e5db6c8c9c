import Glibc

// strata-bench: Strata side by side with swift-configuration, Foundation and Python, printed as one
// Markdown table (see Benchmarks/README.md).

let arguments = Array(CommandLine.arguments.dropFirst())
if arguments.first == "--scale-child", arguments.count == 4, let settings = Int(arguments[1]),
  let edits = Int(arguments[3])
{
  await Scale.child(settings: settings, path: arguments[2], edits: edits)
}

let options = Options.parse(arguments)
let loadBefore = loadAverage()
var notes = [Allocations.sanityCheck()]
var rows: [Row] = []
var growth: String?
let clock = ContinuousClock()
let started = clock.now

if options.rows.contains(.read) { rows += try readRows(options) }
if options.rows.contains(.load) { rows += try await loadRows(options) }
if options.rows.contains(.reload) { rows += try await reloadRows(options) }
if options.rows.contains(.scale) {
  let scale = scaleRows(options)
  rows += scale.rows
  growth = scale.growth
}
if options.rows.contains(.dump) { rows += configDumpRows(options) }
if options.rows.contains(.latency) { rows += await latencyRows(options) }
if options.rows.contains(.argv) { rows += try await commandLineRows(options) }
if options.rows.contains(.start) { rows += startRows(options) }

var system = utsname()
_ = uname(&system)
let machine = withUnsafeBytes(of: system.machine) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
let release = withUnsafeBytes(of: system.release) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }

print(
  """
  ## strata-bench\(options.quick ? " --quick (development figures)" : "")

  Release build, \(sysconf(Int32(_SC_NPROCESSORS_ONLN))) CPUs, Linux \(release) \(machine); \
  each row measured in this run, side by side. Load average before the run \(loadBefore), after \
  \(loadAverage()) (a busy shared machine makes every figure slower and noisier).

  """)
print(resultsTable(rows))
if let growth {
  print("\n### Scale growth (each size in a fresh process)\n")
  print(growth)
}
notes += [
  "ns/read: median over repetitions of a calibrated loop (≈100 ms each) after a warm-up; reads summed into "
    + "a checksum passed to an opaque function. Threads: aggregate reads/s = all threads' reads / wall time, "
    + "threads started together; on 2 cores, 8 threads time-share. 2 threads vs 1: both rates from that "
    + "harness, run in turns (1 and 2 threads of ours, then of a multiply-add loop that touches no memory, "
    + "the machine's own ceiling), medians of 9 rounds.",
  "swift-configuration reads use `reader.int(forKey: \"server.port\")`, the documented form (the key literal "
    + "is parsed on each call).",
  "Allocations: every malloc/calloc/realloc/aligned allocation of the process, counted by the MallocCounter "
    + "target over 10,000 reads.",
  "config-dump: wall time and peak RSS (ru_maxrss) of each run, measured by the small rss-launcher "
    + "program, because a child's ru_maxrss includes the memory map it was exec'ed from; `/bin/true` "
    + "shows that floor.",
  "Load: ours = read + parse + merge into a snapshot with a file:line:column origin for every value "
    + "(a SettingsStore over a FileLayer); in brackets, the FileLayer's load alone (read + parse with origins, no merge); Foundation = read + parse; swift-configuration = FileProvider init "
    + "(read + JSONSerialization + flatten); configparser = parse of a string in memory, timed inside "
    + "python3 with perf_counter (separate process). Ours, our parse alone, Foundation and swift-configuration "
    + "run in turns (one run of each per round, ≥ 5 rounds and ≈ 0.75 s per loader), so their ratios "
    + "compare runs made in the same stretches of the host; medians; MB = 10^6 bytes of that file.",
  "Reload: ours watches with inotify (`store.run()`); latency is rename() → the value received by a task "
    + "iterating the stream. swift-configuration polls (`ReloadingFileProvider`, pollInterval 1 s here, "
    + "15 s by default); edits are spaced by a pseudo-random 0–1 s pause so they do not lock step with "
    + "the poll; measured on a String key with `watchString`, because of the Int row below.",
  "Int row: from its source (ReloadingFileProvider.reloadIfNeeded), swift-configuration 1.4.0 decides "
    + "whether a watched key changed by looking it up as `.string` in the old and new snapshots; for a "
    + "JSON number both lookups fail with a type mismatch, so the change is never delivered to value "
    + "watchers, although the provider reloaded (a plain read sees the new value).",
  "Scale: one 100-setting group type (a struct), one instance per section (SettingsGroup(store:section:)). Each "
    + "size runs in 5 fresh processes (3 at 100,000): cold start is their median (range in brackets), "
    + "reloads are pooled, heap is the largest. Memory = growth over cold start of "
    + "live heap bytes (malloc counter) and of RSS (/proc/self/statm), divided by the settings; RSS also holds one-time page-ins of code and runtime metadata, which dominate at 1,000 settings.",
  "Latency (rows 6): the same rename() of the edited file timed to three readers, each after a first edit "
    + "showed its watch was set: `inotifywait -m -e moved_to` on the file's directory printing the event (the "
    + "floor: the kernel's event reaching a process's stdout through a pipe), release `config-dump --watch` "
    + "printing the change's JSON line, and the new value arriving on `$port.changes` in this process. One JSON "
    + "file; and an app layout under a root (vendor plist, system INI with an INI and a JSON drop-in, user "
    + "JSON, a BENCHAPP_ variable), its system INI file edited. The six readers run in turns, one at a time, "
    + "5 rounds of 100 edits each in a rotating order; ratio = the reader's p50 / its layout's floor p50.",
  "Total time of this run: \(format((clock.now - started).seconds, decimals: 0)) s.",
]
print("\nNotes:\n" + notes.map { "- " + $0 }.joined(separator: "\n"))

/// The 1-minute load average, from /proc/loadavg.
func loadAverage() -> String {
  let fd = open("/proc/loadavg", O_RDONLY | O_CLOEXEC)
  guard fd >= 0 else { return "?" }
  defer { close(fd) }
  var buffer = [UInt8](repeating: 0, count: 128)
  let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
  guard count > 0 else { return "?" }
  return buffer[0..<count].split(separator: UInt8(ascii: " ")).first.map {
    String(decoding: $0, as: UTF8.self)
  } ?? "?"
}
