import Strata
import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// The stores and groups each cold start made, kept so that what is measured is the start alone, not
/// the release of 10,000 settings after it.
private let started = Mutex<[any Sendable]>([])

/// One cold start of a service that declares 10,000 settings: a store over a 10,000-key JSON file
/// (sections `g0000`…`g0099` of keys `s00`…`s99`, one file layer: read, parse, merge), then 100 groups
/// of 100 settings bound to it (`ScaleGroups.make`, as strata-bench's scale rows make them).
func coldStart10k() -> @Sendable () -> Int {
  let path = Fixtures.scaleFile(settings: 10_000)
  return {
    let store = SettingsStore(layers: [FileLayer(scope: .user, files: [path])])
    let groups = ScaleGroups.make(settings: 10_000, store: store)
    let value = groups[50].s50
    precondition(value == (50 * 100 + 50) % 9_973 + 1, "the scale file did not load")
    started.withLock {
      $0.append(store); $0.append(groups)
    }
    return value
  }
}

/// The same cold start over the layers a service has besides its file: the environment (a few
/// variables naming settings of the first groups, and the usual others) and the command line (one
/// option). Declaring a group loads those layers again only when a variable or option names one of its
/// settings, so the 100 groups cost about what they cost over the file alone.
func coldStart10kEnvironment() -> @Sendable () -> Int {
  let path = Fixtures.scaleFile(settings: 10_000)
  var variables = ["HOME": "/root", "PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "TERM": "xterm"]
  for group in 0..<4 {
    variables["BENCH_\(ScaleGroups.section(group).uppercased())_S07"] = "7"
  }
  return { [variables] in
    let store = SettingsStore(layers: [
      FileLayer(scope: .user, files: [path]), EnvironmentLayer(prefix: "BENCH", variables: variables),
      CommandLineLayer(arguments: ["--\(ScaleGroups.section(2)).s09", "9"]),
    ])
    let groups = ScaleGroups.make(settings: 10_000, store: store)
    let value = groups[50].s50
    precondition(value == (50 * 100 + 50) % 9_973 + 1, "the scale file did not load")
    precondition(groups[3].s07 == 7 && groups[2].s09 == 9, "the environment or the command line did not load")
    started.withLock {
      $0.append(store); $0.append(groups)
    }
    return value
  }
}

extension Fixtures {
  /// Writes the scale rows' file of `settings` keys to a temporary path and returns the path.
  static func scaleFile(settings: Int) -> String {
    var text = "{\n"
    let groups = settings / 100
    for group in 0..<groups {
      text += "  \"\(ScaleGroups.section(group))\": {"
      for setting in 0..<100 {
        let name = setting < 10 ? "s0\(setting)" : "s\(setting)"
        text += "\"\(name)\": \((group * 100 + setting) % 9_973 + 1)" + (setting < 99 ? ", " : "")
      }
      text += "}" + (group + 1 < groups ? ",\n" : "\n")
    }
    text += "}\n"
    let path = "/tmp/strata-thresholds-scale-\(settings)-\(getpid()).json"
    guard let file = fopen(path, "w") else { preconditionFailure("cannot write \(path)") }
    defer { fclose(file) }
    precondition(fputs(text, file) >= 0, "cannot write \(path)")
    return path
  }
}
