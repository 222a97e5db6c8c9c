import Foundation
import Testing

/// `Scripts/check-doc-snippets.py`, run on small repositories of its own: it passes only when every
/// Swift block of the documents and of the sources' doc comments is its compiled file or region, byte
/// for byte.
@Suite struct DocSnippetCheckTests {
  let script = repositoryRoot + "/Scripts/check-doc-snippets.py"
  let snippetFile = """
    enum Sample {
      static func run() {
        // snippet: greet
        let name = "world"
        // snippet: hide
        precondition(!name.isEmpty)
        // snippet: show
        print("hello, \\(name)")
        // snippet: end
      }
    }

    """

  /// Runs the script on a repository holding `readme`, the snippet file and, when given, a Swift source.
  func check(readme: String, snippets: String? = nil, source: String? = nil) async throws -> Spawn.Result {
    try await withTemporaryDirectory { root in
      try write(readme, to: root + "/README.md")
      try write(snippets ?? snippetFile, to: root + "/Tests/DocSnippets/Sample.swift")
      if let source { try write(source, to: root + "/Sources/Greeting/Greeter.swift") }
      return try await Spawn.run("/usr/bin/python3", [script, root])
    }
  }

  func readme(marker: String = "<!-- snippet: Tests/DocSnippets/Sample.swift#greet -->", body: String)
    -> String
  {
    "# Title\n\n\(marker)\n```swift\n\(body)```\n\nText.\n"
  }

  let shown = "let name = \"world\"\nprint(\"hello, \\(name)\")\n"

  /// A Swift source whose type's doc comment shows `body` (its fence on line 5).
  func greeter(marker: String = "<!-- snippet: Tests/DocSnippets/Sample.swift#greet -->", body: String)
    -> String
  {
    let text = ["Greets.", "", marker, "```swift"] + body.split(separator: "\n").map(String.init) + ["```"]
    let comment = text.map { $0.isEmpty ? "  ///" : "  /// \($0)" }.joined(separator: "\n")
    return "public enum Greeting {\n\(comment)\n  public enum Greeter {}\n}\n"
  }

  @Test func aBlockEqualToItsRegionLessTheHiddenLinesPasses() async throws {
    let result = try await check(readme: readme(body: shown))
    #expect(result.status == 0, "\(result.errors)")
    #expect(result.output == "1 Swift samples match their compiled files\n")
  }

  @Test func aBlockThatDiffersFailsNamingTheLineAndBothTexts() async throws {
    let result = try await check(readme: readme(body: shown.replacingOccurrences(of: "world", with: "there")))
    #expect(result.status == 1)
    #expect(result.errors.contains("README.md:5: differs from Tests/DocSnippets/Sample.swift#greet"))
    #expect(result.errors.contains("shown:    let name = \"there\""))
    #expect(result.errors.contains("compiled: let name = \"world\""))
  }

  @Test func aBlockWithoutAMarkerOrWithAWrongOneFails() async throws {
    let unmarked = try await check(readme: readme(marker: "", body: shown))
    #expect(unmarked.status == 1)
    #expect(
      unmarked.errors.contains("README.md:4: a ```swift block without '<!-- snippet: FILE[#REGION] -->'"))
    let missingFile = try await check(readme: readme(marker: "<!-- snippet: Nowhere.swift -->", body: shown))
    #expect(missingFile.errors.contains("the snippet file Nowhere.swift does not exist"))
    let missingRegion = try await check(
      readme: readme(marker: "<!-- snippet: Tests/DocSnippets/Sample.swift#other -->", body: shown))
    #expect(missingRegion.errors.contains("Tests/DocSnippets/Sample.swift has no region 'other'"))
  }

  @Test func aRegionShownNowhereOrLeftOpenFails() async throws {
    let unused = try await check(readme: "# No samples\n")
    #expect(unused.status == 1)
    #expect(
      unused.errors.contains("Tests/DocSnippets/Sample.swift:3: region 'greet' is shown in no document"))
    let open = try await check(
      readme: readme(body: shown), snippets: snippetFile.replacingOccurrences(of: "// snippet: end", with: "")
    )
    #expect(open.status == 1)
    #expect(open.errors.contains("region 'greet' has no '// snippet: end'"))
  }

  @Test func aDocCommentBlockIsReadLessItsSlashesAndComparedToItsRegion() async throws {
    let matching = try await check(readme: "# No samples\n", source: greeter(body: shown))
    #expect(matching.status == 0, "\(matching.errors)")
    #expect(matching.output == "1 Swift samples match their compiled files\n")
    let changed = try await check(
      readme: "# No samples\n", source: greeter(body: shown.replacingOccurrences(of: "world", with: "there")))
    #expect(changed.status == 1)
    #expect(
      changed.errors.contains(
        "Sources/Greeting/Greeter.swift:6: differs from Tests/DocSnippets/Sample.swift#greet"))
    #expect(changed.errors.contains("shown:    let name = \"there\""))
    let indented = try await check(
      readme: "# No samples\n",
      source: greeter(body: shown.replacingOccurrences(of: "print", with: "  print")))
    #expect(indented.status == 1)
    #expect(indented.errors.contains("Sources/Greeting/Greeter.swift:7: differs from"))
  }

  @Test func aDocCommentBlockWithoutAMarkerFailsNamingTheCommentedMarker() async throws {
    let unmarked = try await check(
      readme: readme(body: shown), source: greeter(marker: "A sample:", body: shown))
    #expect(unmarked.status == 1)
    #expect(
      unmarked.errors.contains(
        "Sources/Greeting/Greeter.swift:5: a ```swift block without '/// <!-- snippet: FILE[#REGION] -->'"))
    let plainComment = try await check(
      readme: readme(body: shown),
      source: greeter(body: shown).replacingOccurrences(of: "  /// ", with: "  // "))
    #expect(plainComment.status == 0, "a block in a `//` comment is no doc sample: \(plainComment.errors)")
  }
}
