import Testing

@testable import Strata

/// What python-dotenv 1.x (`dotenv_values(path, interpolate=False)`) reads from the same text, written
/// down by hand from a run of it, so that the tests need neither Python nor the package. Keys are
/// compared after Strata's name mapping (python-dotenv keeps names literal).
@Suite struct DotEnvPythonComparisonTests {
  static let agreed = """
    # comment
    export A=1
      B = two words  
    C=x # note
    D=x#y
    F='lit $X \\n x'
    H="multi
    line"
    I=${A}/bin
    J="${A}"
    L=
    M=a=b
    N  =  'q'  # c
    O=1
    O=2
    Q="a\\\\b"
    S=a  b  
    T="x" # c
    V="e\\n\\t\\"\\\\"

    """

  /// python-dotenv's values for ``agreed``.
  static let python: [String: String] = [
    "A": "1", "B": "two words", "C": "x", "D": "x#y", "F": "lit $X \\n x", "H": "multi\nline",
    "I": "${A}/bin", "J": "${A}", "L": "", "M": "a=b", "N": "q", "O": "2", "Q": "a\\b", "S": "a  b", "T": "x",
    "V": "e\n\t\"\\",
  ]

  @Test func theCommonGrammarReadsAsPythonDotenvReadsIt() throws {
    let ours = try dotEnvLeaves(Self.agreed)
    let expected = Dictionary(
      uniqueKeysWithValues: Self.python.map { (SettingKey.join(DotEnvKeys.names(of: $0.key)!), $0.value) })
    #expect(ours == expected)
  }

  /// The documented differences (Strata.docc/DotEnvDialect.md).
  @Test func theDocumentedDifferences() throws {
    // `KEY= # c`: python-dotenv keeps "# c"; Strata, like a shell, reads a comment.
    #expect(try dotEnvLeaves("E= # c\n") == ["e": ""])
    // `\$` in double quotes: python-dotenv keeps the backslash; Strata reads "$".
    #expect(try dotEnvLeaves(#"G="\$X""# + "\n") == ["g": "$X"])
    // Single quotes: python-dotenv decodes \' and \\; in Strata every character is literal.
    #expect(try dotEnvLeaves(#"P='a\\b'"# + "\n") == ["p": #"a\\b"#])
    #expect(parseError(#"K='a\'b'"#, as: DotEnvFormat()) != nil)
    // A name without `=`: python-dotenv gives None; Strata refuses the line.
    #expect(parseError("KEY\n", as: DotEnvFormat())?.code == .syntax)
  }
}
