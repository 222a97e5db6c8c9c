import Foundation
import Testing

@testable import Strata

/// A zero-byte file and a file of only whitespace are the same empty configuration in every format.
@Suite struct BlankFileTests {
  static let blanks = ["", "\n", " \n\t\n  ", "\r\n\r\n"]

  @Test(arguments: FormatRegistry.standard.mainFileExtensions, blanks)
  func aBlankMainFileIsAnEmptyLayer(ext: String, text: String) throws {
    try withTemporaryDirectory { root in
      try write(text, to: root + "/etc/x/x.\(ext)")
      let contents = FileLayer(scope: .system, files: ["/etc/x/x.\(ext)"])
        .load(LoadContext(options: ParseOptions(resolvePath: rootResolver(root))))
      #expect(contents.diagnostics.isEmpty, "\(contents.diagnostics)")
      #expect(contents.documents.map(\.path) == ["/etc/x/x.\(ext)"])
      #expect(contents.documents.first?.root.table?.isEmpty == true)
    }
  }

  @Test(arguments: FormatRegistry.standard.mainFileExtensions, blanks)
  func formatsLoadReadsABlankFileAsAnEmptyDocument(ext: String, text: String) throws {
    try withTemporaryDirectory { dir in
      try write(text, to: dir + "/x.\(ext)")
      let document = try #require(try Formats.load(path: dir + "/x.\(ext)"))
      #expect(document.root.table?.isEmpty == true)
    }
  }

  @Test(arguments: ["json", "plist"])
  func whitespaceAroundSomethingThatIsNotADocumentIsStillAnError(ext: String) throws {
    try withTemporaryDirectory { dir in
      try write(" \n x \n", to: dir + "/x.\(ext)")
      #expect(throws: StrataError.self) { try Formats.load(path: dir + "/x.\(ext)") }
    }
  }

  @Test func configDumpReportsNoErrorForAnyBlankFile() async throws {
    try await withTemporaryDirectory { dir in
      var paths: [String] = []
      for ext in ["json", "plist", "ini"] {
        try write(" \n", to: dir + "/blank.\(ext)")
        try write("", to: dir + "/empty.\(ext)")
        paths += [dir + "/blank.\(ext)", dir + "/empty.\(ext)"]
      }
      let run = try await runConfigDump(["--check"] + paths)
      #expect(run.status == 0, "\(run.output)\(run.errors)")
      #expect(
        run.output.contains("checked 6 files, 0 keys: 0 errors, 0 warnings"), "\(run.output)\(run.errors)")
    }
  }
}
