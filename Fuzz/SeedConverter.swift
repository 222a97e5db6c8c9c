import FoundationEssentials
import StrataPlatform

/// Builds seeds for one format from the seeds of the others, with the library's own writers: every JSON,
/// XML property list and INI seed that parses is written again as a binary and an XML property list,
/// as JSON and (when INI or dotenv can hold it) as INI and dotenv. That gives the binary parser real files to start from,
/// which no fixture holds.
///
/// Run by `Scripts/fuzz.sh` as `STRATA_FUZZ_MAKE_SEEDS=DIR strata-fuzz`: it reads `DIR/json`,
/// `DIR/plist-xml` and `DIR/ini`, writes into `DIR/<format>`, and exits.
enum SeedConverter {
  static func run(in directory: String) {
    var written = 0
    for source in ["json", "plist-xml", "ini"] {
      for name in fileNames(in: directory + "/" + source) {
        guard let bytes = read(directory + "/" + source + "/" + name), let root = parse(bytes, as: source)
        else { continue }
        let stem = "from-\(source)-\(name)"
        let outputs: [(String, () throws(StrataError) -> [UInt8])] = [
          ("plist-binary", { () throws(StrataError) in try PropertyListFormat().serializeBinary(root) }),
          ("plist-xml", { () throws(StrataError) in try PropertyListFormat().serialize(root) }),
          ("json", { () throws(StrataError) in try JSONFormat().serialize(root) }),
          ("ini", { () throws(StrataError) in try INIFormat().serialize(root) }),
          ("dotenv", { () throws(StrataError) in try DotEnvFormat().serialize(root) }),
        ]
        for (target, serialize) in outputs where target != source {
          guard let output = try? serialize() else { continue }
          written += write(output, to: directory + "/" + target + "/" + stem) ? 1 : 0
        }
      }
    }
    print("strata-fuzz: wrote \(written) converted seeds under \(directory)")
  }

  private static func parse(_ bytes: [UInt8], as source: String) -> SettingValue? {
    switch source {
    case "json": try? JSONFormat().parse(bytes, path: "seed.json", options: ParseOptions()).root
    case "plist-xml": try? PropertyListFormat().parse(bytes, path: "seed.plist", options: ParseOptions()).root
    default: try? INIFormat().parse(bytes, path: "/seed.ini", options: IncludeSandbox.options).root
    }
  }

  private static func fileNames(in directory: String) -> [String] {
    (DirectoryEntries.names(atPath: directory) ?? []).filter { !$0.hasPrefix(".") }.sorted()
  }

  private static func read(_ path: String) -> [UInt8]? {
    try? FileReader.read(path, reportedAs: path, limit: 1 << 20)
  }

  private static func write(_ bytes: [UInt8], to path: String) -> Bool {
    guard let file = fopen(path, "w") else { return false }
    defer { fclose(file) }
    return bytes.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, file) } == bytes.count
  }
}
