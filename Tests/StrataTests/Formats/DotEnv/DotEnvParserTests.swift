import Testing

@testable import Strata

@Suite struct DotEnvParserTests {
  @Test func plainAssignmentsExportAndBlanksAroundEquals() throws {
    let document = try parse("A=1\nexport B=2\n  C = three  \nexport\tD=4\nexport=5\n", as: DotEnvFormat())
    #expect(dotEnvString(document, "a") == "1")
    #expect(dotEnvString(document, "b") == "2")
    #expect(dotEnvString(document, "c") == "three")
    #expect(dotEnvString(document, "d") == "4")
    #expect(dotEnvString(document, "export") == "5")
    #expect(document.diagnostics.isEmpty)
  }

  @Test func commentLinesBlankLinesAndInlineComments() throws {
    let text =
      "# a comment\n\n   # indented\nA=x # note\nB=x#not-a-comment\nC= # only a comment\nD=a\t# tab\n"
    let leaves = try dotEnvLeaves(text)
    #expect(leaves == ["a": "x", "b": "x#not-a-comment", "c": "", "d": "a"])
  }

  @Test func singleQuotesAreLiteral() throws {
    let leaves = try dotEnvLeaves(#"A='x # y \n ${HOME} "q"'   # comment"# + "\nB=''\n")
    #expect(leaves == ["a": #"x # y \n ${HOME} "q""#, "b": ""])
  }

  @Test func doubleQuotesDecodeTheDocumentedEscapes() throws {
    let leaves = try dotEnvLeaves(
      #"A="1\n2\t3\r4\"5\\6\$7\'8\a\b\f\v" "# + "\n" + #"B="\x \u0041 \q""# + "\n")
    #expect(leaves["a"] == "1\n2\t3\r4\"5\\6$7'8\u{07}\u{08}\u{0C}\u{0B}")
    #expect(leaves["b"] == #"\x \u0041 \q"#)
  }

  @Test func noInterpolation() throws {
    let leaves = try dotEnvLeaves("HOME_DIR=/home/x\nA=${HOME_DIR}/bin\nB=\"$HOME_DIR\"\nC='${X:-y}'\n")
    #expect(leaves["a"] == "${HOME_DIR}/bin")
    #expect(leaves["b"] == "$HOME_DIR")
    #expect(leaves["c"] == "${X:-y}")
  }

  @Test func quotedValuesSpanLines() throws {
    let document = try parse("A=\"line 1\nline 2\" # c\nB='x\ny'\nC=after\n", as: DotEnvFormat())
    #expect(dotEnvString(document, "a") == "line 1\nline 2")
    #expect(dotEnvString(document, "b") == "x\ny")
    #expect(position(document.root.value(at: "c")) == "5:3")
  }

  @Test func crlfFilesReadAsLF() throws {
    let document = try parse("A=1\r\nB=\"x\r\ny\"\r\nC='z'\r\n", as: DotEnvFormat())
    #expect(dotEnvString(document, "a") == "1")
    #expect(dotEnvString(document, "b") == "x\ny")
    #expect(dotEnvString(document, "c") == "z")
    #expect(position(document.root.value(at: "c")) == "4:3")
  }

  @Test func everyValueHasTheLineAndColumnWhereItStarts() throws {
    let document = try parse("\u{FEFF}A=1\n  export B = 'two'\nC=\n", as: DotEnvFormat(), path: "/etc/a.env")
    #expect(position(document.root.value(at: "a")) == "1:3")
    #expect(position(document.root.value(at: "b")) == "2:14")
    #expect(position(document.root.value(at: "c")) == "3:3")
    #expect(document.root.value(at: "b")?.origin.path == "/etc/a.env")
  }

  @Test func aKeySetTwiceKeepsItsPlaceAndTheLastValueWithAWarning() throws {
    let document = try parse("A=1\nB=2\nA=3\n", as: DotEnvFormat(), path: "/x.env")
    #expect(document.root.table?.keys == ["a", "b"])
    #expect(dotEnvString(document, "a") == "3")
    #expect(position(document.root.value(at: "a")) == "3:3")
    let warning = try #require(document.diagnostics.first)
    #expect(warning.severity == .warning && warning.error.code == .duplicateKey)
    #expect(position(warning.error) == "3:1")
    #expect(warning.error.message.contains("/x.env:1:3"))
  }

  @Test func aValueAndATableReplaceEachOtherLastWins() throws {
    let document = try parse("A=1\nA__B=2\nC__D=3\nC=4\n", as: DotEnvFormat())
    #expect(dotEnvString(document, "a.b") == "2")
    #expect(dotEnvString(document, "c") == "4")
    #expect(document.diagnostics.count == 2)
    #expect(document.diagnostics.allSatisfy { $0.error.code == .duplicateKey })
  }

  @Test func emptyAndBlankFilesAreEmptyTables() throws {
    #expect(try parse("", as: DotEnvFormat()).root.table?.isEmpty == true)
    #expect(try parse("# only\n\n", as: DotEnvFormat()).root.table?.isEmpty == true)
  }
}
