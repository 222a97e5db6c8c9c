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
  return [
    Row(
      name: "7. Command-line layer built from 100,000 distinct options (`--groupG.keyK V`), median s",
      ours: format(hundred, decimals: 3),
      theirs:
        "\(format(ten, decimals: 4)) at 10,000 options (\(format(hundred / ten, decimals: 1))× for 10× the options)",
      ratio: "—", target: "< 1 s", met: yesNo(hundred < 1))
  ]
}
