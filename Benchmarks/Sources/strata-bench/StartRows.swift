import Glibc

/// Row 7: how fast `config-dump --key` answers, beside `git config --get` on the same INI file: wall
/// time (posix_spawn → wait4) of each run, measured by rss-launcher, the two run in turns, medians.
/// Measured for the static executable the README's release command builds, and for the ordinary
/// release build (17 shared libraries to load and relocate).
func startRows(_ options: Options) -> [Row] {
  let name = "7. `config-dump --key a.b FILE` vs `git config --file FILE --get a.b`"
  let gits: [String] = ["/usr/bin/git", "/usr/local/bin/git", "/bin/git"]
  guard let git = gits.first(where: { access($0, X_OK) == 0 })
  else {
    return [Row(name: name, ours: "—", theirs: "git not installed", ratio: "—", target: "—", met: "—")]
  }
  let directory = makeTemporaryDirectory("start")
  defer { removeTree(directory) }
  let file = directory + "/start.ini"
  writeFile(file, "[server]\n\tport = 8080\n[a]\n\tb = hello\n")
  let binaries: [(label: String, path: String?)] = [
    ("static executable (`Scripts/build-release.sh`)", staticConfigDump(options)),
    ("release build, shared libraries", releaseConfigDump(options)),
  ]
  let launcher = siblingExecutable("rss-launcher")
  let runs = options.quick ? 21 : 201
  var rows: [Row] = []
  for (label, binary) in binaries {
    guard let binary else {
      rows.append(
        Row(name: "\(name): \(label)", ours: "build failed", theirs: "—", ratio: "—", target: "—", met: "—"))
      continue
    }
    let ours = [binary, "--key", "a.b", file]
    let theirs = [git, "config", "--file", file, "--get", "a.b"]
    for command in [ours, theirs] {
      let check = spawnAndWait(command[0], Array(command.dropFirst()), captureOutput: true)
      guard check.status == 0, check.output == "hello\n" else {
        printError("\(command.joined(separator: " ")) answered \(check.status): \(check.output)")
        return rows + [
          Row(name: "\(name): \(label)", ours: "failed", theirs: "—", ratio: "—", target: "—", met: "—")
        ]
      }
    }
    printError("start: \(label), \(runs) runs of each in turns")
    var oursWalls: [Double] = []
    var theirWalls: [Double] = []
    for _ in 0..<runs {
      guard let a = wallMilliseconds(launcher, ours), let b = wallMilliseconds(launcher, theirs) else {
        return rows + [
          Row(
            name: "\(name): \(label)", ours: "launcher failed", theirs: "—", ratio: "—", target: "—", met: "—"
          )
        ]
      }
      oursWalls.append(a)
      theirWalls.append(b)
    }
    let ratio = median(oursWalls) / median(theirWalls)
    rows.append(
      Row(
        name: "\(name): \(label), wall ms, median of \(runs)",
        ours: format(median(oursWalls), decimals: 2),
        theirs: format(median(theirWalls), decimals: 2) + " `git config`",
        ratio: "\(format(ratio, decimals: 2))×", target: "≤ 1.5×", met: ratio <= 1.5 ? "yes" : "**no**"))
  }
  return rows
}

/// The wall time of one run through rss-launcher, in milliseconds; `nil` when it fails.
private func wallMilliseconds(_ launcher: String, _ command: [String]) -> Double? {
  let run = spawnAndWait(launcher, command, captureOutput: true)
  let fields = run.output.split(whereSeparator: \.isWhitespace)
  guard run.status == 0, fields.count == 3, let wall = Double(fields[0]) else { return nil }
  return wall / 1e6
}

/// The static config-dump, built by `Scripts/build-release.sh` into `.build-static` once per run;
/// `nil` when the build fails.
func staticConfigDump(_ options: Options) -> String? {
  let root = repositoryRoot()
  printError("config-dump: Scripts/build-release.sh (a static executable)")
  let build = spawnAndWait("/bin/sh", ["\(root)/Scripts/build-release.sh"], captureOutput: true)
  let path = build.output.split(separator: "\n").last.map(String.init) ?? ""
  guard build.status == 0, access(path, X_OK) == 0 else {
    printError("building the static config-dump failed:\n\(build.output)")
    return nil
  }
  return path
}
