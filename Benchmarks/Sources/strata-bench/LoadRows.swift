import Configuration
import Foundation
import Strata
import SystemPackage

/// Row 2: load throughput. Ours reads, parses and merges the file into a snapshot that records the
/// origin (file:line:column) of every value (`LayerStack` over one `FileLayer`); Foundation reads and
/// parses; swift-configuration's `FileProvider<JSONSnapshot>` reads, parses (with JSONSerialization)
/// and flattens; Python's configparser parses a string already in memory, in its own process.
func loadRows(_ options: Options) async throws -> [Row] {
  let directory = makeTemporaryDirectory("load")
  defer { removeTree(directory) }
  let fixtures = [
    (ConfigFixture(sections: 1_400, keysPerSection: 20), "large"),
    (ConfigFixture(sections: 100, keysPerSection: 100), "tenk"),
  ]
  let budget: Duration = options.quick ? .milliseconds(300) : .seconds(1)
  let minimumRuns = options.quick ? 3 : 5
  var rows: [Row] = []
  for (fixture, name) in fixtures {
    // The targets hold for the 1 MB files (issue 13): a rate per format and, where Foundation parses the
    // format, at least 3× its rate on the same bytes; the smaller files keep "not slower than Foundation".
    let isLarge = name == "large"
    func foundationTarget(_ minimum: Double) -> String {
      isLarge ? "≥ \(format(minimum, decimals: 0)) MB/s, ≥ 3× Foundation" : "≥ Foundation"
    }
    func meetsFoundationTarget(_ minimum: Double, ours: Double, foundation: Double) -> String {
      yesNo(isLarge ? ours >= minimum && ours >= 3 * foundation : ours >= foundation)
    }
    let files = try fixture.write(to: directory, name: name)
    let keys = fixture.sections * fixture.keysPerSection

    func ours(_ path: String) async -> Double {
      let stack = LayerStack(layers: [FileLayer(scope: .user, files: [path])])
      let check = stack.load()
      precondition(check.diagnostics.isEmpty && check.keys.count == keys, "ours: \(path) did not load")
      return await secondsPerRun(minimumRuns: minimumRuns, budget: budget) { blackHole(stack.load()) }
    }
    func oursParseOnly(_ path: String) async throws -> Double {
      try await secondsPerRun(minimumRuns: minimumRuns, budget: budget / 2) {
        blackHole(try Formats.load(path: path))
      }
    }
    func megabytesPerSecond(_ path: String, _ seconds: Double) -> Double {
      Double(fileSize(path)) / 1e6 / seconds
    }
    func sizeLabel(_ path: String) -> String { "\(format(Double(fileSize(path)) / 1e6, decimals: 2)) MB" }

    // JSON
    printError("load: JSON \(fixture.label)")
    let oursJSON = megabytesPerSecond(files.json, await ours(files.json))
    let oursJSONParse = megabytesPerSecond(files.json, try await oursParseOnly(files.json))
    let foundationJSON = megabytesPerSecond(
      files.json,
      try await secondsPerRun(minimumRuns: minimumRuns, budget: budget) {
        guard let data = FileManager.default.contents(atPath: files.json) else { fatalError("unreadable") }
        blackHole(try JSONSerialization.jsonObject(with: data))
      })
    let provider = try await FileProvider<JSONSnapshot>(filePath: FilePath(files.json))
    precondition(
      ConfigReader(provider: provider).int(forKey: "section1.option1") != nil, "FileProvider failed")
    let swiftConfigurationJSON = megabytesPerSecond(
      files.json,
      try await secondsPerRun(minimumRuns: minimumRuns, budget: budget) {
        blackHole(try await FileProvider<JSONSnapshot>(filePath: FilePath(files.json)))
      })
    let jsonName = "2. load JSON \(sizeLabel(files.json)), \(fixture.label), MB/s"
    rows.append(
      Row(
        name: jsonName, ours: "\(format(oursJSON)) (parse only \(format(oursJSONParse)))",
        theirs: "\(format(foundationJSON)) Foundation JSONSerialization",
        ratio: throughputRatio(ours: oursJSON, theirs: foundationJSON), target: foundationTarget(150),
        met: meetsFoundationTarget(150, ours: oursJSON, foundation: foundationJSON)))
    rows.append(
      Row(
        name: jsonName, ours: "\(format(oursJSON)) (parse only \(format(oursJSONParse)))",
        theirs: "\(format(swiftConfigurationJSON)) swift-configuration FileProvider<JSONSnapshot>",
        ratio: throughputRatio(ours: oursJSON, theirs: swiftConfigurationJSON), target: "—", met: "—"))

    // Property lists, XML and binary
    for (path, kind, minimum) in [(files.xmlPlist, "XML", 150.0), (files.binaryPlist, "binary", 200.0)] {
      printError("load: \(kind) plist \(fixture.label)")
      let oursPlist = megabytesPerSecond(path, await ours(path))
      let oursPlistParse = megabytesPerSecond(path, try await oursParseOnly(path))
      let foundationPlist = megabytesPerSecond(
        path,
        try await secondsPerRun(minimumRuns: minimumRuns, budget: budget) {
          guard let data = FileManager.default.contents(atPath: path) else { fatalError("unreadable") }
          blackHole(try PropertyListSerialization.propertyList(from: data, options: [], format: nil))
        })
      rows.append(
        Row(
          name: "2. load plist \(kind) \(sizeLabel(path)), \(fixture.label), MB/s",
          ours: "\(format(oursPlist)) (parse only \(format(oursPlistParse)))",
          theirs: "\(format(foundationPlist)) Foundation PropertyListSerialization",
          ratio: throughputRatio(ours: oursPlist, theirs: foundationPlist), target: foundationTarget(minimum),
          met: meetsFoundationTarget(minimum, ours: oursPlist, foundation: foundationPlist)))
    }

    // INI
    printError("load: INI \(fixture.label)")
    let oursINI = megabytesPerSecond(files.ini, await ours(files.ini))
    let oursINIParse = megabytesPerSecond(files.ini, try await oursParseOnly(files.ini))
    let python = PythonINI.medianSeconds(path: files.ini, runs: options.quick ? 3 : 7, directory: directory)
    if let python, python.keys != keys {
      printError("configparser found \(python.keys) keys, expected \(keys)")
    }
    let pythonINI = python.map { megabytesPerSecond(files.ini, $0.seconds) }
    rows.append(
      Row(
        name: "2. load INI \(sizeLabel(files.ini)), \(fixture.label), MB/s",
        ours: "\(format(oursINI)) (parse only \(format(oursINIParse)))",
        theirs: pythonINI.map { "\(format($0)) Python configparser (separate process, parse only)" }
          ?? "python3 unavailable",
        ratio: pythonINI.map { throughputRatio(ours: oursINI, theirs: $0) } ?? "—",
        target: isLarge ? "≥ 200 MB/s" : "—", met: isLarge ? yesNo(oursINI >= 200) : "—"))
  }
  return rows
}
