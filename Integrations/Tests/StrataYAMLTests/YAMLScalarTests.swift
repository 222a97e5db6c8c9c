import Strata
import StrataYAML
import Testing

/// The core schema (YAML 1.2): what each plain scalar becomes.
@Suite struct YAMLScalarTests {
  @Test(arguments: [
    ("true", SettingValue.Kind.bool(true)), ("False", .bool(false)), ("yes", .string("yes")),
    ("no", .string("no")), ("on", .string("on")), ("off", .string("off")), ("y", .string("y")),
    ("017", .integer(17)), ("0o17", .integer(15)), ("0x1F", .integer(31)), ("-42", .integer(-42)),
    ("+7", .integer(7)), ("1_000", .string("1_000")), ("0b101", .string("0b101")), ("1:20", .string("1:20")),
    ("1.5", .double(1.5)), ("1e3", .double(1000)), (".5", .double(0.5)), ("3.", .double(3)),
    (".inf", .double(.infinity)), ("-.Inf", .double(-.infinity)), ("2001-12-14", .string("2001-12-14")),
    ("18446744073709551615", .unsignedInteger(UInt.max)), ("'8080'", .string("8080")),
    ("\"true\"", .string("true")), ("!!str 12", .string("12")), ("! 12", .string("12")),
    ("!!float 1", .double(1)), ("!!int '7'", .integer(7)),
  ])
  func plainScalars(text: String, expected: SettingValue.Kind) throws {
    let document = try parseYAML("value: \(text)\n")
    #expect(document.kind("value") == expected)
  }

  @Test func notANumberIsAFloat() throws {
    guard case .double(let value) = try parseYAML("x: .nan\n").kind("x") else {
      Issue.record("not a double")
      return
    }
    #expect(value.isNaN)
  }

  @Test func nullUnsetsAKeyAndIsDroppedFromASequenceWithAWarning() throws {
    let document = try parseYAML("a: ~\nb:\nc: null\nd: [1, ~, 2]\nkept: 1\n")
    #expect(document.root.table?.map(\.key) == ["d", "kept"])
    #expect(
      document.kind("d")
        == .array([
          SettingValue(.integer(1), origin: .codeDefault), SettingValue(.integer(2), origin: .codeDefault),
        ]))
    #expect(document.diagnostics.count == 1)
    #expect(document.diagnostics.first?.error.location == "/etc/demo/demo.yaml:4:8")
  }

  @Test func anIntegerOutside64BitsIsRefusedWithItsPosition() {
    let error = yamlError("a: 1\nbig: 99999999999999999999\n")
    #expect(error?.code == .invalidNumber)
    #expect(error?.location == "/etc/demo/demo.yaml:2:6")
  }

  @Test func aValueThatDoesNotFitItsTagIsRefused() {
    let error = yamlError("port: !!int eighty\n")
    #expect(error?.code == .invalidValue)
    #expect(error?.message.contains("!!int") == true)
    #expect(error?.location == "/etc/demo/demo.yaml:1:7")
  }

  @Test(arguments: ["!!binary aGk=", "!!timestamp 2001-12-14", "!Ref bucket", "!!python/object:os.system x"])
  func tagsOutsideTheCoreSchemaAreRefused(value: String) {
    let error = yamlError("a: 1\nb: \(value)\n")
    #expect(error?.code == .typeMismatch)
    #expect(error?.location == "/etc/demo/demo.yaml:2:4")
    #expect(error?.message.contains("core schema") == true)
  }

  @Test func collectionTagsOutsideTheCoreSchemaAreRefused() {
    #expect(yamlError("a: !!set {x, y}\n")?.code == .typeMismatch)
    #expect(yamlError("a: !!omap [x: 1]\n")?.code == .typeMismatch)
    #expect(yamlError("a: !!seq {x: 1}\n")?.code == .typeMismatch)
  }

  @Test func blockScalarsAndQuotedStringsAreText() throws {
    let document = try parseYAML("script: |\n  echo 1\n  echo 2\nfolded: >-\n  one\n  two\nq: 'it''s'\n")
    #expect(document.kind("script") == .string("echo 1\necho 2\n"))
    #expect(document.kind("folded") == .string("one two"))
    #expect(document.kind("q") == .string("it's"))
  }
}
