import Foundation
import Testing

@testable import Strata

/// A file with a million problems costs twenty diagnostics and a summary, and the count stays exact.
@Suite struct DiagnosticCapTests {
  @Test(arguments: ["json", "ini", "plist", "dotenv"])
  func duplicatesAreCappedPerFileWithAnExactCount(format: String) throws {
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
    #expect(document.diagnostics.count == CappedDiagnostics.limit + 1)
    #expect(document.diagnostics.reduce(0) { $0 + $1.occurrences } == count - 1)
    let summary = try #require(document.diagnostics.last)
    #expect(
      summary.description
        == "/etc/app/app.\(format): warning: and \(count - 1 - CappedDiagnostics.limit) more warnings in this file (the first 20 are shown)"
    )
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
