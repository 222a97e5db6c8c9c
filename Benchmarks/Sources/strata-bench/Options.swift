import Glibc

/// The rows a run can select.
enum RowGroup: String, CaseIterable {
  case read, load, reload, scale, dump, latency, argv, start
}

/// Command-line options.
struct Options {
  /// Fewer iterations and edits, for development.
  var quick = false
  /// The rows to run (default: all).
  var rows = Set(RowGroup.allCases)
  /// The scale sizes (settings) for the growth table.
  var scaleSizes = [1_000, 10_000, 100_000]
  /// A config-dump binary to measure instead of building the root package's release product.
  var configDump: String?

  static let usage = """
    USAGE: strata-bench [--quick] [--rows read,load,reload,scale,dump,latency,argv,start] [--scale-sizes 1000,10000,100000]
                        [--config-dump PATH]
      --quick          fewer iterations, edits and runs (development only; figures are noisier)
      --rows LIST      run only these rows (default: all)
      --scale-sizes    settings counts for the scale growth table (multiples of 100, at most 100,000)
      --config-dump    measure this config-dump binary instead of building the root package's release one
    """

  /// Parses `arguments` (without the program name); exits with the usage on a mistake.
  static func parse(_ arguments: [String]) -> Options {
    var options = Options()
    var index = 0
    func value() -> String {
      index += 1
      guard index < arguments.count else { fail("\(arguments[index - 1]) needs a value") }
      return arguments[index]
    }
    while index < arguments.count {
      switch arguments[index] {
      case "--quick": options.quick = true
      case "--rows":
        var rows = Set<RowGroup>()
        for name in value().split(separator: ",") {
          guard let row = RowGroup(rawValue: String(name)) else { fail("unknown row '\(name)'") }
          rows.insert(row)
        }
        options.rows = rows
      case "--scale-sizes":
        options.scaleSizes = value().split(separator: ",").map { text in
          guard let size = Int(text), size >= 100, size % 100 == 0, size <= ScaleGroups.maximumSettings else {
            fail("bad scale size '\(text)'")
          }
          return size
        }
      case "--config-dump": options.configDump = value()
      case "--help", "-h":
        print(usage)
        exit(0)
      default: fail("unknown option '\(arguments[index])'")
      }
      index += 1
    }
    return options
  }

  private static func fail(_ message: String) -> Never {
    printError("strata-bench: \(message)\n\(usage)")
    exit(2)
  }
}
