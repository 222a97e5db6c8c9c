import Configuration
import Foundation
import Strata
import SystemPackage

/// Row 2: load throughput. Ours reads, parses and merges the file into a snapshot that records the
/// origin (file:line:column) of every value (a `SettingsStore` over one `FileLayer`); Foundation reads and
/// parses; swift-configuration's `FileProvider<JSONSnapshot>` reads, parses (with JSONSerialization)
/// and flattens; Python's configparser parses a string already in memory, in its own process. The
/// loaders of one file run in turns (``secondsPerRunInTurns``), so their ratios compare like with like.
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

    /// A load by ours (read, parse, merge into a snapshot: a store made over the file), checked once.
    func oursLoad(_ path: String) -> () async throws -> Void {
      let layers = [FileLayer(scope: .user, files: [path])]
      let check = SettingsStore(layers: layers).snapshot
      precondition(check.diagnostics.isEmpty && check.entries.count == keys, "ours: \(path) did not load")
      return { blackHole(SettingsStore(layers: layers).snapshot) }
    }
    /// Ours, parse only (the file layer's read and parse with origins, no merge).
    func oursParse(_ path: String) -> () async throws -> Void {
      let layer = FileLayer(scope: .user, files: [path])
      return { blackHole(layer.load(LoadContext())) }
    }
    /// Ours, our parse alone and the others' loads, in turns (see ``secondsPerRunInTurns``): the ratios
    /// compare runs made in the same stretches of the host.
    func inTurns(_ bodies: [() async throws -> Void]) async throws -> [Double] {
      try await secondsPerRunInTurns(
        minimumRounds: minimumRuns, budget: budget * Double(bodies.count) * 0.75, bodies)
    }
    func megabytesPerSecond(_ path: String, _ seconds: Double) -> Double {
      Double(fileSize(path)) / 1e6 / seconds
    }
    func sizeLabel(_ path: String) -> String { "\(format(Double(fileSize(path)) / 1e6, decimals: 2)) MB" }

    // JSON
    printError("load: JSON \(fixture.label)")
    let provider = try await FileProvider<JSONSnapshot>(filePath: FilePath(files.json))
    precondition(
      ConfigReader(provider: provider).int(forKey: "section1.option1") != nil, "FileProvider failed")
    let json = try await inTurns([
      oursLoad(files.json), oursParse(files.json),
      {
        guard let data = FileManager.default.contents(atPath: files.json) else { fatalError("unreadable") }
        blackHole(try JSONSerialization.jsonObject(with: data))
      },
      { blackHole(try await FileProvider<JSONSnapshot>(filePath: FilePath(files.json))) },
    ]).map { megabytesPerSecond(files.json, $0) }
    let (oursJSON, oursJSONParse, foundationJSON, swiftConfigurationJSON) = (
      json[0], json[1], json[2], json[3]
    )
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
      let plist = try await inTurns([
        oursLoad(path), oursParse(path),
        {
          guard let data = FileManager.default.contents(atPath: path) else { fatalError("unreadable") }
          blackHole(try PropertyListSerialization.propertyList(from: data, options: [], format: nil))
        },
      ]).map { megabytesPerSecond(path, $0) }
      let (oursPlist, oursPlistParse, foundationPlist) = (plist[0], plist[1], plist[2])
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
    let ini = try await inTurns([oursLoad(files.ini), oursParse(files.ini)]).map {
      megabytesPerSecond(files.ini, $0)
    }
    let (oursINI, oursINIParse) = (ini[0], ini[1])
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
