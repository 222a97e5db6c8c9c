/// Python's configparser timed inside its own process: the file is read once, then parsed `runs`
/// times with time.perf_counter around `read_string` only; the median seconds is printed.
enum PythonINI {
  static let script = """
    import configparser, statistics, sys, time
    path, runs = sys.argv[1], int(sys.argv[2])
    with open(path, encoding="utf-8") as f:
        text = f.read()
    samples = []
    for _ in range(runs + 1):  # the first run is a warm-up
        start = time.perf_counter()
        parser = configparser.ConfigParser(interpolation=None)
        parser.read_string(text)
        samples.append(time.perf_counter() - start)
    keys = sum(len(parser[s]) for s in parser.sections())
    print(statistics.median(samples[1:]), keys)

    """

  /// The median seconds of one configparser parse of `path`, and the keys it found; nil when python3
  /// is missing or fails.
  static func medianSeconds(path: String, runs: Int, directory: String) -> (seconds: Double, keys: Int)? {
    let scriptPath = "\(directory)/configparser_bench.py"
    writeFile(scriptPath, script)
    let run = spawnAndWait("python3", [scriptPath, path, String(runs)], captureOutput: true)
    let fields = run.output.split(whereSeparator: { $0 == " " || $0 == "\n" })
    guard run.status == 0, fields.count == 2, let seconds = Double(fields[0]), let keys = Int(fields[1])
    else {
      printError("python3 configparser failed (status \(run.status)): \(run.output)")
      return nil
    }
    return (seconds, keys)
  }
}
