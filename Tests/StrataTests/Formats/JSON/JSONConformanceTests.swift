import Foundation
import Testing

@testable import Strata

/// JSONTestSuite's parsing cases: `y_` accepted, `n_` rejected with a StrataError, `i_` either way.
/// They live in `../shared/conformance` (or `$STRATA_CONFORMANCE_DIR`); a clone without it skips them.
@Suite(
  .enabled(
    if: conformanceAvailable || runningInCI,
    "skipped: no JSONTestSuite at \(conformanceDirectory) (set STRATA_CONFORMANCE_DIR to run it)"))
struct JSONConformanceTests {
  static let directory = conformanceDirectory + "/JSONTestSuite/test_parsing"

  static let files: [String] =
    ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).filter { $0.hasSuffix(".json") }
    .sorted()

  static func bytes(_ name: String) throws -> [UInt8] {
    Array(try #require(FileManager.default.contents(atPath: directory + "/" + name)))
  }

  /// Guards the tests below, which would pass vacuously on an empty directory (and fails CI if the data
  /// went missing there, rather than skipping).
  @Test func suiteIsPresent() {
    #expect(Self.files.count > 300, "expected the JSONTestSuite cases in \(Self.directory)")
    #expect(Self.files.filter { $0.hasPrefix("y_") }.count > 90)
    #expect(Self.files.filter { $0.hasPrefix("n_") }.count > 180)
  }

  @Test(arguments: files.filter { $0.hasPrefix("y_") })
  func accepts(_ name: String) throws {
    let bytes = try Self.bytes(name)
    #expect(throws: Never.self) { try JSONParser.parseValue(bytes, path: name, maxDepth: 512) }
  }

  @Test(arguments: files.filter { $0.hasPrefix("n_") })
  func rejects(_ name: String) throws {
    let bytes = try Self.bytes(name)
    let error = #expect(throws: StrataError.self) {
      try JSONParser.parseValue(bytes, path: name, maxDepth: 512)
    }
    #expect(error?.path == name)
    #expect((error?.line ?? 0) > 0 && (error?.column ?? 0) > 0, "\(String(describing: error))")
  }

  @Test(arguments: files.filter { $0.hasPrefix("i_") })
  func implementationDefinedDoesNotCrash(_ name: String) throws {
    let bytes = try Self.bytes(name)
    _ = try? JSONParser.parseValue(bytes, path: name, maxDepth: 512)
  }

  @Test func hundredThousandOpeningArraysFailCleanly() throws {
    let bytes = try Self.bytes("n_structure_100000_opening_arrays.json")
    let error = #expect(throws: StrataError.self) {
      try JSONParser.parseValue(bytes, path: "x", maxDepth: 512)
    }
    #expect(error?.code == .nestingTooDeep)
    #expect(error?.line == 1 && error?.column == 513)
  }
}
