import Strata

/// One measured operation of the library's hot paths, shared by the allocation thresholds
/// (package-benchmark) and the instruction-count check (callgrind over `strata-instructions`).
public struct Workload: Sendable {
  /// The name the thresholds files and `check-instructions.py` know it by.
  public let name: String
  /// Builds the fixture (not measured) and returns the operation; each call of it does the same work
  /// and returns a value derived from it, for the caller to keep alive.
  public let prepare: @Sendable () -> @Sendable () -> Int
  /// Whether the allocation thresholds check it too (package-benchmark runs each workload up to 200
  /// times a second); a cold start is checked by its instruction count only.
  public let checksAllocations: Bool

  init(name: String, prepare: @escaping @Sendable () -> @Sendable () -> Int, checksAllocations: Bool = true) {
    self.name = name
    self.prepare = prepare
    self.checksAllocations = checksAllocations
  }

  /// Every workload, in the order the checks report them.
  public static let all: [Workload] = [
    Workload(name: "CachedTypedRead", prepare: cachedTypedRead),
    Workload(name: "SnapshotReadByKey", prepare: snapshotReadByKey),
    Workload(name: "ParseJSON", prepare: { parse(Fixtures.json, format: "json", path: "app.json") }),
    Workload(name: "ParseINI", prepare: { parse(Fixtures.ini, format: "ini", path: "app.ini") }),
    Workload(name: "ParsePlist", prepare: { parse(Fixtures.xmlPlist, format: "plist", path: "app.plist") }),
    Workload(name: "StoreReloadAfterEdit", prepare: storeReloadAfterEdit),
    Workload(name: "CommandLineLayer", prepare: commandLineLayer),
    Workload(name: "ColdStart10k", prepare: coldStart10k, checksAllocations: false),
    Workload(name: "ColdStart10kEnvironment", prepare: coldStart10kEnvironment, checksAllocations: false),
  ]

  /// The workload called `name`, if there is one.
  public static func named(_ name: String) -> Workload? {
    all.first { $0.name == name }
  }
}
