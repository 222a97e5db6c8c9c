import Foundation
import Testing

@testable import Strata

/// A file with a million problems costs twenty diagnostics and a summary, and the count stays exact.
@Suite struct DiagnosticCapTests {
  @Test(arguments: ["json", "ini", "plist", "dotenv"])
  func duplicatesAreCappedPerFileWithAnExactCount(format: String) async throws {
    // 50,000 duplicate keys parsed in a debug build: on a thread of its own, not the cooperative pool's.
    try await checkedOnOwnThread { checks in try Self.checkDuplicates(format: format, &checks) }
  }

  private static func checkDuplicates(format: String, _ checks: inout ThreadChecks) throws {
    let count = 50_000
    let text: String
    switch format {
    case "json": text = "{" + (0..<count).map { "\"k\": \($0)" }.joined(separator: ", ") + "}"
    case "ini": text = "[s]\n" + (0..<count).map { "k = \($0)\n" }.joined()
    case "dotenv": text = (0..<count).map { "K=\($0)\n" }.joined()
    default:
      text =
        "<plist><dict>" + (0..<count).map { "<key>k</key><integer>\($0)</integer>" }.joined()
        + "</dict></plist>"
    }
    let document = try parse(
      text, as: FormatRegistry.standard.format(named: format)!, path: "/etc/app/app.\(format)")
    checks.expect(document.diagnostics.count == CappedDiagnostics.limit + 1, "\(document.diagnostics.count)")
    let occurrences = document.diagnostics.reduce(0) { $0 + $1.occurrences }
    checks.expect(occurrences == count - 1, "\(occurrences) occurrences")
    let summary = document.diagnostics.last?.description
    checks.expect(
      summary
        == "/etc/app/app.\(format): warning: and \(count - 1 - CappedDiagnostics.limit) more warnings in this file (the first 20 are shown)",
      "\(summary ?? "no diagnostic")")
  }

  @Test func checkCountsEveryProblemButPrintsTwentyAndASummary() async throws {
    try await withTemporaryDirectory { dir in
      try write("[s]\n" + (0..<1000).map { "k = \($0)\n" }.joined(), to: dir + "/app.ini")
      let check = try await runConfigDump([dir + "/app.ini", "--check"])
      let lines = check.output.split(separator: "\n")
      #expect(lines.count == CappedDiagnostics.limit + 2)
      #expect(check.output.hasSuffix("checked 1 file, 1 key: 0 errors, 999 warnings\n"))
    }
  }
}
