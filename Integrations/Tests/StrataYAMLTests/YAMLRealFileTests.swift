import Strata
import StrataYAML
import Testing

/// Lines of real files that a YAML 1.2 reader (PyYAML, libyaml) reads, and the messages for what is
/// refused: where an indicator is text, and which limit a large document reached.
@Suite struct YAMLRealFileTests {
  /// `?` is an indicator only where a node starts: at the end of a plain scalar it is text (redmine's
  /// locale files: `notice_...: Are you sure ?`).
  @Test func aQuestionMarkEndingAPlainScalarIsText() throws {
    let document = try parseYAML("q: sure ?\nlist:\n  - why ?\n  - a ? b\nflow: [x ?, y]\n")
    #expect(document.kind("q") == .string("sure ?"))
    #expect(
      document.root.value(at: "list")?.elementKinds == [.string("why ?"), .string("a ? b")])
    #expect(document.root.value(at: "flow")?.elementKinds == [.string("x ?"), .string("y")])
    // At a node's start it is still the explicit key, and still refused before a collection.
    #expect(try parseYAML("? explicit\n: e\n").kind("explicit") == .string("e"))
    #expect(yamlError("a:\n  ? [b]\n  : c\n")?.code == .typeMismatch)
  }

  /// Brackets and braces inside a block plain scalar are text (`.appveyor.yml`:
  /// `- ps: $env:Path = [System.Environment]::GetEnvironmentVariable(...)`).
  @Test func bracketsInsideABlockPlainScalarAreText() throws {
    let document = try parseYAML(
      "a: x [b]::c\nb: x {b}::c\nsteps:\n  - ps: $env:Path = [System.Environment]::GetEnvironmentVariable('Path')\n"
    )
    #expect(document.kind("a") == .string("x [b]::c"))
    #expect(document.kind("b") == .string("x {b}::c"))
    let step = document.root.value(at: "steps")?.elementValues.first
    #expect(
      step?.value(at: "ps")?.kind
        == .string("$env:Path = [System.Environment]::GetEnvironmentVariable('Path')"))
    // A quote inside a plain scalar is text too; at a node's start it opens a quoted scalar.
    #expect(try parseYAML("a: it's x 'y\nb: 'q: [1]'\n").kind("a") == .string("it's x 'y"))
    #expect(try parseYAML("a: it's x 'y\nb: 'q: [1]'\n").kind("b") == .string("q: [1]"))
    // A flow collection at a node's start is still one, and still refused as a key.
    #expect(yamlError("[a, b]: 1\n")?.code == .typeMismatch)
    #expect(try parseYAML("a: &x [1, 2]\nb: !!seq [3]\n").root.value(at: "b")?.elementKinds.count == 1)
  }

  /// An alias inside the node its own anchor names would make a value that contains itself: refused,
  /// and the message says so (libyaml's own is "found undefined alias").
  @Test func anAliasInsideItsOwnAnchorsNodeIsRefusedAsACycle() {
    let error = yamlError("a: &x\n  b: *x\n")
    #expect(error?.code == .syntax)
    #expect(error?.location == "/etc/demo/demo.yaml:2:6")
    #expect(
      error?.message
        == "the alias *x is inside the node its anchor &x (at 1:4) names: a value that contains itself has no end, and is refused"
    )
    let unknown = yamlError("a: *nowhere\n")
    #expect(
      unknown?.message
        == "the alias *nowhere names no anchor: an anchor '&nowhere' must come before its aliases")
  }

  /// A large document without aliases names the limit it reached, and does not blame aliases.
  @Test func aLargeSequenceNamesTheLimitNotAliases() {
    var small = ParseOptions()
    small.maxValues = 1_000
    let items = (0..<2_000).map { "  - \($0)" }.joined(separator: "\n")
    let error = yamlError("list:\n\(items)\n", options: small)
    #expect(error?.code == .tooManyValues)
    #expect(error?.message == "the document has more than 1000 values (ParseOptions.maxValues)")
    let aliased = yamlError(
      "a: &a [1, 2, 3, 4, 5]\nb: [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\n",
      options: {
        var options = ParseOptions()
        options.maxValues = 50
        return options
      }())
    #expect(aliased?.message.contains("aliases repeat the nodes they name") == true)
  }
}

extension SettingValue {
  /// The elements of an array value (none for any other value).
  fileprivate var elementValues: [SettingValue] {
    if case .array(let elements) = kind { return elements }
    return []
  }
  /// The kinds of the elements of an array value.
  fileprivate var elementKinds: [SettingValue.Kind] { elementValues.map(\.kind) }
}
