import Glibc
import Synchronization

/// Row 5: one process run of the release `config-dump --root Samples/demo --app demo --show-origin`:
/// wall time (posix_spawn → wait4) and peak RSS (wait4's ru_maxrss), medians of several runs, measured by
/// rss-launcher.
func configDumpRows(_ options: Options) -> [Row] {
  let root = repositoryRoot()
  guard let binary = releaseConfigDump(options) else {
    return [Row(name: "5. config-dump", ours: "build failed", theirs: "—", ratio: "—", target: "—", met: "—")]
  }
  let arguments = ["--root", "\(root)/Samples/demo", "--app", "demo", "--show-origin"]
  let check = spawnAndWait(binary, arguments, captureOutput: true)
  guard check.status == 0, check.output.contains("server.port") else {
    printError("config-dump failed (status \(check.status)): \(check.output)")
    return [Row(name: "5. config-dump", ours: "failed", theirs: "—", ratio: "—", target: "—", met: "—")]
  }
  // Peak RSS must be measured from a small parent (see Sources/rss-launcher/main.c).
  let launcher = siblingExecutable("rss-launcher")
  let runs = options.quick ? 5 : 21
  printError("config-dump: \(runs) runs")
  var walls: [Double] = []
  var peaks: [Double] = []
  var baselineWalls: [Double] = []
  var baselinePeaks: [Double] = []
  for _ in 0..<runs {
    guard let run = launch(launcher, [binary] + arguments), let baseline = launch(launcher, ["/bin/true"])
    else {
      return [
        Row(name: "5. config-dump", ours: "launcher failed", theirs: "—", ratio: "—", target: "—", met: "—")
      ]
    }
    walls.append(run.wallMilliseconds)
    peaks.append(run.peakMiB)
    baselineWalls.append(baseline.wallMilliseconds)
    baselinePeaks.append(baseline.peakMiB)
  }
  let name = "5. `config-dump --root Samples/demo --app demo --show-origin` (release), median of \(runs)"
  return [
    Row(
      name: "\(name): wall ms", ours: format(median(walls), decimals: 2),
      theirs: "\(format(median(baselineWalls), decimals: 2)) `/bin/true` (spawn floor)", ratio: "—",
      target: "—",
      met: "—"),
    Row(
      name: "\(name): peak RSS MiB",
      ours: format(median(peaks), decimals: 1)
        + (median(peaks) <= median(baselinePeaks) * 1.1 ? " (at the launcher's floor: not its own)" : ""),
      theirs: "\(format(median(baselinePeaks), decimals: 1)) `/bin/true` (the launcher's floor)", ratio: "—",
      target: "—", met: "—"),
  ]
}

/// Runs `arguments` through rss-launcher; nil when it fails.
private func launch(_ launcher: String, _ arguments: [String]) -> (wallMilliseconds: Double, peakMiB: Double)?
{
  let run = spawnAndWait(launcher, arguments, captureOutput: true)
  let fields = run.output.split(whereSeparator: \.isWhitespace)
  guard run.status == 0, fields.count == 3, let wall = Double(fields[0]), let peak = Double(fields[1]),
    fields[2] == "0"
  else {
    printError("rss-launcher \(arguments.joined(separator: " ")) failed: \(run.output)")
    return nil
  }
  return (wall / 1e6, peak / 1024)
}

/// A program built next to this one (in the same .build directory).
func siblingExecutable(_ name: String) -> String {
  var buffer = [CChar](repeating: 0, count: 4096)
  let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
  guard count > 0 else { return name }
  let path = String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
  return String(path[..<(path.lastIndex(of: "/") ?? path.endIndex)]) + "/" + name
}

/// The config-dump binary to measure: `--config-dump PATH`, else the root package's release product,
/// built once per run; `nil` when the build fails.
func releaseConfigDump(_ options: Options) -> String? {
  if let given = options.configDump { return given }
  if let built = builtConfigDump.withLock({ $0 }) { return built }
  let root = repositoryRoot()
  printError("config-dump: swift build -c release --product config-dump (root package)")
  let build = spawnAndWait(
    "swift", ["build", "-c", "release", "--package-path", root, "--product", "config-dump"],
    captureOutput: true)
  guard build.status == 0 else {
    printError("building config-dump failed:\n\(build.output)")
    return nil
  }
  let binary = "\(root)/.build/release/config-dump"
  builtConfigDump.withLock { $0 = binary }
  return binary
}

/// The release config-dump once built.
private let builtConfigDump = Mutex<String?>(nil)
