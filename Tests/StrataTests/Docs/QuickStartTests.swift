import Foundation
import Testing

/// The README's Quick start, run as a newcomer runs it: its `main.swift` (built as `quick-start`) against
/// the file the README says to create, with the commands the README shows, compared with the output the
/// README shows. Nothing here repeats the README's text: it is read from README.md.
@Suite struct QuickStartTests {
  /// The built Quick start, beside `config-dump`.
  let program = (configDumpPath as NSString).deletingLastPathComponent + "/quick-start"

  @Test func theReadmeCommandsPrintWhatTheReadmeShows() async throws {
    let readme = try QuickStartReadme.load()
    let runs = try readme.runs()
    #expect(runs.count >= 2, "the README's run block shows the file's value and an override")
    try await withTemporaryDirectory { home in
      try write(readme.file.content, to: home + "/" + readme.file.homeRelativePath)
      for run in runs {
        let result = try await Spawn.run(
          program, run.arguments,
          environment: run.environment.merging(["PATH": "/usr/bin:/bin", "HOME": home]) {
            mine, _ in mine
          })
        #expect(result.status == 0, "\(run.command): \(result.errors)")
        #expect(result.errors == "", "\(run.command) printed problems")
        #expect(
          result.output.replacingOccurrences(of: home, with: "/home/you") == run.expected, "\(run.command)")
      }
    }
  }

  @Test func withoutTheFileItStopsAndNamesTheMissingSettingAndWhereToSetIt() async throws {
    let readme = try QuickStartReadme.load()
    try await withTemporaryDirectory { home in
      let result = try await Spawn.run(program, [], environment: ["PATH": "/usr/bin:/bin", "HOME": home])
      #expect(result.status == 1)
      #expect(result.output == "", "nothing is served before the check")
      let said = "error: required setting 'server.greeting' has no value; set it in"
      #expect(result.errors.hasPrefix(said), "\(result.errors)")
      #expect(result.errors.contains(home + "/.config/hello/hello.{plist,json,ini,env,toml}"))
      #expect(result.errors.hasSuffix("HELLO_SERVER_GREETING or --server.greeting\n"))
      #expect(readme.text.contains(said), "the README quotes the message")
    }
  }

  @Test func theReadmesMistakesAreReportedWithTheirPositionsAndTheDefaultIsUsed() async throws {
    let readme = try QuickStartReadme.load()
    let broken = readme.file.content.replacingOccurrences(of: "port = 9000\n", with: "port = 90a\nprot = 1\n")
    #expect(broken != readme.file.content, "the README's file sets port = 9000")
    try await withTemporaryDirectory { home in
      try write(broken, to: home + "/" + readme.file.homeRelativePath)
      let result = try await Spawn.run(program, [], environment: ["PATH": "/usr/bin:/bin", "HOME": home])
      #expect(result.status == 0, "\(result.errors)")
      #expect(result.output.contains("listening on 127.0.0.1:8080\n"))
      for message in [
        "/hello.ini:2:8: error: expected Int for server.port, found \"90a\"",
        "/hello.ini:3:1: warning: unknown key 'server.prot' (did you mean 'server.port'?)",
      ] {
        #expect(result.errors.contains(home + "/.config/hello" + message), "\(result.errors)")
        #expect(readme.text.contains("`…" + message + "`"), "the README quotes \(message)")
      }
    }
  }

  @Test func theReadmesRunBlockIsParsedAsCommandsAndTheirOutput() throws {
    let readme = QuickStartReadme(
      text: "<!-- quick-start: ~/.config/x.ini -->\n```ini\na = 1\n```\n<!-- quick-start: run -->\n```text\n"
        + "$ swift run hello\none\n$ A=1 B=2 swift run hello --k v\ntwo\nthree\n```\n")
    #expect(readme.file.homeRelativePath == ".config/x.ini")
    #expect(readme.file.content == "a = 1\n")
    let runs = try readme.runs()
    #expect(runs.map(\.arguments) == [[], ["--k", "v"]])
    #expect(runs.map(\.environment) == [[:], ["A": "1", "B": "2"]])
    #expect(runs.map(\.expected) == ["one\n", "two\nthree\n"])
    let wrong = QuickStartReadme(text: "<!-- quick-start: run -->\n```text\n$ swift build\n```\n")
    #expect(throws: QuickStartReadme.Problem.self) { try wrong.runs() }
  }
}

/// The README's first command prints what the README shows (its first lines, then `…`).
@Suite struct ReadmeFirstCommandTests {
  @Test func theFirstCommandPrintsTheLinesTheReadmeShows() async throws {
    let shown = try #require(try QuickStartReadme.load().firstCommandOutput)
    #expect(shown.hasSuffix("\n…\n"), "the README shows the first lines, then …")
    let run = try await runConfigDump(["--root", "Samples/demo", "--app", "demo", "--show-origin"])
    #expect(run.status == 0, "\(run.errors)")
    #expect(run.output.hasPrefix(String(shown.dropLast(2))), "\(run.output)")
  }
}
