import FoundationEssentials
import StrataPlatform

// The libFuzzer entry points. `Scripts/fuzz.sh` compiles this folder together with every source file
// of the library into one binary (`swiftc -sanitize=fuzzer,address -parse-as-library`), so internal
// API is reachable without `@testable`, and picks the target with `STRATA_FUZZ_TARGET`.

/// The things one binary can fuzz.
enum FuzzTarget: String, CaseIterable, Sendable {
  case json
  case jsonSplice = "json-splice"
  case plistXML = "plist-xml"
  case plistBinary = "plist-binary"
  case ini
  case dotenv
  case toml
  case env
  case decoder

  /// The target named by `STRATA_FUZZ_TARGET`; a missing or unknown name stops the process.
  static let selected: FuzzTarget = {
    let names = allCases.map(\.rawValue).joined(separator: ", ")
    guard let raw = getenv("STRATA_FUZZ_TARGET") else {
      fatalError("set STRATA_FUZZ_TARGET to one of: \(names)")
    }
    guard let target = FuzzTarget(rawValue: String(cString: raw)) else {
      fatalError("unknown STRATA_FUZZ_TARGET '\(String(cString: raw))'; expected one of: \(names)")
    }
    return target
  }()

  func run(_ bytes: [UInt8]) {
    switch self {
    case .json: FormatTargets.json(bytes)
    case .jsonSplice: SpliceTarget.run(bytes)
    case .plistXML: FormatTargets.propertyList(bytes, binary: false)
    case .plistBinary: FormatTargets.propertyList(bytes, binary: true)
    case .ini: FormatTargets.ini(bytes)
    case .dotenv: DotEnvTarget.run(bytes)
    case .toml: TOMLTarget.run(bytes)
    case .env: ConversionTargets.environment(bytes)
    case .decoder: ConversionTargets.decoder(bytes)
    }
  }
}

/// Called once by libFuzzer before the first input. With `STRATA_FUZZ_MAKE_SEEDS=DIR` it instead
/// converts the seed files under `DIR` between formats (see ``SeedConverter``) and exits.
@_cdecl("LLVMFuzzerInitialize")
public func fuzzerInitialize(_ argc: OpaquePointer?, _ argv: OpaquePointer?) -> CInt {
  if let directory = getenv("STRATA_FUZZ_MAKE_SEEDS") {
    SeedConverter.run(in: String(cString: directory))
    exit(0)
  }
  _ = FuzzTarget.selected
  return 0
}

/// Called by libFuzzer for every input. Returns 0 always: a failed invariant stops the process.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzerTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
  let bytes = size == 0 ? [] : Array(UnsafeBufferPointer(start: data, count: size))
  FuzzTarget.selected.run(bytes)
  return 0
}

/// Stops the process, so that libFuzzer saves the input, when an invariant does not hold.
func check(
  _ condition: Bool, _ message: @autoclosure () -> String, file: StaticString = #fileID, line: UInt = #line
) {
  if !condition { fatalError("invariant failed: \(message())", file: file, line: line) }
}
