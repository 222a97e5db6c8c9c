import Foundation

/// The parts of the README that a test runs. The Quick start: the file it says to create (the fenced
/// block after `<!-- quick-start: ~/PATH -->`) and the commands with their output (the block after
/// `<!-- quick-start: run -->`: `$ [NAME=value …] swift run hello [ARGUMENT …]` lines, each followed
/// by what it prints). The first command's output: the block after `<!-- try-it: output -->`.
struct QuickStartReadme {
  /// The README's text.
  var text: String

  /// A README that does not hold what the test needs.
  struct Problem: Error, CustomStringConvertible {
    var description: String
  }

  /// The file to create, relative to the home directory.
  var file: (homeRelativePath: String, content: String) {
    for (marker, block) in markedBlocks("quick-start") where marker.hasPrefix("~/") {
      return (String(marker.dropFirst(2)), block)
    }
    return ("", "")
  }

  /// One command of the run block.
  struct Run {
    var command: String
    var environment: [String: String]
    var arguments: [String]
    var expected: String
  }

  /// The commands of the run block, in order.
  func runs() throws(Problem) -> [Run] {
    guard let block = markedBlocks("quick-start").first(where: { $0.marker == "run" })?.block else {
      throw Problem(description: "README.md has no '<!-- quick-start: run -->' block")
    }
    var runs: [Run] = []
    for line in block.split(separator: "\n", omittingEmptySubsequences: false).dropLast() {
      guard line.hasPrefix("$ ") else {
        guard !runs.isEmpty else { throw Problem(description: "output before any command: \(line)") }
        runs[runs.count - 1].expected += line + "\n"
        continue
      }
      var words = line.dropFirst(2).split(separator: " ").map(String.init)
      var environment: [String: String] = [:]
      while let first = words.first, let equals = first.firstIndex(of: "="), first != "swift" {
        environment[String(first[..<equals])] = String(first[first.index(after: equals)...])
        words.removeFirst()
      }
      guard words.starts(with: ["swift", "run", "hello"]) else {
        throw Problem(description: "not a 'swift run hello' command: \(line)")
      }
      runs.append(
        Run(
          command: String(line), environment: environment, arguments: Array(words.dropFirst(3)), expected: "")
      )
    }
    return runs
  }

  /// The output the README shows for its first command (the block after `<!-- try-it: output -->`).
  var firstCommandOutput: String? {
    markedBlocks("try-it").first { $0.marker == "output" }?.block
  }

  /// Each `<!-- KIND: MARKER -->` with the content of the fenced block that follows it.
  private func markedBlocks(_ kind: String) -> [(marker: String, block: String)] {
    let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
    var blocks: [(String, String)] = []
    var index = 0
    while index < lines.count {
      let line = lines[index]
      index += 1
      let opening = "<!-- \(kind): "
      guard line.hasPrefix(opening), line.hasSuffix(" -->"), index < lines.count,
        lines[index].hasPrefix("```")
      else { continue }
      let marker = String(line.dropFirst(opening.count).dropLast(" -->".count))
      index += 1
      var content = ""
      while index < lines.count, lines[index] != "```" {
        content += lines[index] + "\n"
        index += 1
      }
      blocks.append((marker, content))
    }
    return blocks
  }

  /// The repository's README.
  static func load() throws -> QuickStartReadme {
    QuickStartReadme(text: try String(contentsOfFile: repositoryRoot + "/README.md", encoding: .utf8))
  }
}
