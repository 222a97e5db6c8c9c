import Strata

/// Row 7: building the command-line layer (split the arguments, read them, build the tree) from 10,000
/// and 100,000 distinct `--groupG.keyK V` options, each run on a new layer (a layer keeps its reading),
/// in turns; medians.
func commandLineRows(_ options: Options) async throws -> [Row] {
  func arguments(_ count: Int) -> [String] {
    var arguments: [String] = []
    arguments.reserveCapacity(count * 2)
    for index in 0..<count { arguments += ["--group\(index % 1000).key\(index)", "\(index)"] }
    return arguments
  }
  let small = arguments(10_000)
  let large = arguments(100_000)
  func build(_ arguments: [String]) {
    let contents = CommandLineLayer(arguments: arguments).load(LoadContext())
    precondition(contents.documents.first?.root.table?.count == min(arguments.count / 2, 1000))
    blackHole(contents)
  }
  printError("command line: 10,000 and 100,000 options, in turns")
  let seconds = try await secondsPerRunInTurns(
    minimumRounds: options.quick ? 3 : 7, budget: .seconds(options.quick ? 2 : 6),
    [{ build(small) }, { build(large) }])
  let (ten, hundred) = (seconds[0], seconds[1])
  // A store started over such a command line, its 100-setting groups then bound one by one (each
  // registration loads the command line again): what a program with that many options pays at start.
  func start(options count: Int, groups: Int) -> Double {
    var arguments: [String] = []
    for index in 0..<count {
      arguments += [
        "--\(ScaleGroups.section(index / 100)).s\(index % 100 < 10 ? "0" : "")\(index % 100)", "1",
      ]
    }
    let clock = ContinuousClock()
    let started = clock.now
    let store = SettingsStore(layers: [CommandLineLayer(arguments: arguments)])
    let bound = ScaleGroups.make(settings: groups * 100, store: store)
    precondition(bound.last?.s99 == 1)
    blackHole(bound)
    return (clock.now - started).seconds
  }
  printError("command line: a store over 10,000 and 100,000 options binding 100 groups")
  let startSmall = median((0..<3).map { _ in start(options: 10_000, groups: 100) })
  let startLarge = median((0..<3).map { _ in start(options: 100_000, groups: 100) })
  return [
    Row(
      name: "7. Command-line layer built from 100,000 distinct options (`--groupG.keyK V`), median s",
      ours: format(hundred, decimals: 3),
      theirs:
        "\(format(ten, decimals: 4)) at 10,000 options (\(format(hundred / ten, decimals: 1))× for 10× the options)",
      ratio: "—", target: "< 1 s", met: yesNo(hundred < 1)),
    Row(
      name: "7. Store over 100,000 options, 100 groups of 100 settings bound one by one, median of 3 s",
      ours: format(startLarge, decimals: 3),
      theirs: "\(format(startSmall, decimals: 3)) over 10,000 options", ratio: "—", target: "—", met: "—"),
  ]
}
