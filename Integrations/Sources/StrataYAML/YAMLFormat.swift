public import Strata
import Yams

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// YAML 1.2 files (`.yaml`, `.yml`), parsed by libyaml through Yams, with the line and column of every
/// value.
///
/// Register it once and every file layer, drop-in directory and `config-dump` built with it reads YAML:
///
/// <!-- snippet: Integrations/Tests/StrataIntegrationsTests/DocSnippets/IntegrationSnippets.swift#yaml-register -->
/// ```swift
/// let formats = FormatRegistry.standard.registering(YAMLFormat())
/// let store = SettingsStore(app: "demo", formats: formats)  // reads /etc/demo/demo.yaml too
/// ```
///
/// What YAML's traps become, each refused with the file, line and column where a choice is made:
/// - **Scalars follow the core schema.** `true`/`false` are booleans; `yes`, `no`, `on`, `off` stay
///   strings (a setting declared `Bool` reads them anyway); `0o17` is octal, `0x1F` hexadecimal, `017`
///   decimal; `.inf`, `-.inf`, `.nan` are floats; `~`, `null` and an empty value are null. Dates stay
///   text. An integer outside 64 bits is an `invalidNumber` error.
/// - **Null** unsets: a key set to null is left out of its table; a null sequence element is dropped
///   with a warning (as JSON's `null` is).
/// - **Anchors and aliases** are expanded; the expansion counts towards ``ParseOptions/maxValues``, so
///   that a billion-laughs document is a `tooManyValues` error. An alias cannot be a key, and an alias
///   inside the node its own anchor names (`a: &x` then `  b: *x`: a value that contains itself) is a
///   `syntax` error that says so.
/// - **Merge keys** (`<<: *base`, `<<: [*a, *b]`) copy the keys the mapping does not set itself; in a
///   list, earlier mappings win.
/// - **One document per file.** A second document (after `---`) is a `syntax` error at its start.
/// - **Duplicate keys** are a `duplicateKey` error naming both positions.
/// - **Keys are strings.** A key YAML reads as another type (`1:`, `true:`, `~:`), a collection or an
///   alias is a `typeMismatch` error: quote it. An explicit key (`? key`) must be a scalar on its line.
/// - **Tags** other than the core ones (`!!str`, `!!int`, `!!float`, `!!bool`, `!!null`, `!!seq`,
///   `!!map`, and `!`) are a `typeMismatch` error: `!!binary`, `!!timestamp`, `!!set`, `!Ref`.
///
/// Limits: ``ParseOptions/maxFileSize``, ``ParseOptions/maxValues`` and ``ParseOptions/maxDepth``; the
/// depth is checked before libyaml runs, from an upper bound of the nesting (each space of indentation
/// and each open bracket counts as a level).
public struct YAMLFormat: ConfigFormat {
  /// The format's name, `yaml`.
  public static let name = "yaml"
  /// Extensions that select this format: `yaml`, `yml`.
  public static let fileExtensions = ["yaml", "yml"]

  /// Creates the format.
  public init() {}

  /// Parses a YAML file.
  /// - Throws: ``StrataError`` with the line and column of the problem: `syntax` (libyaml's message, a
  ///   second document, an undefined alias), `duplicateKey`, `typeMismatch` (a key that is not a string,
  ///   a tag outside the core schema, a top level that is not a mapping), `invalidValue` (a tagged value
  ///   that does not fit its tag), `invalidNumber`, `invalidUTF8`, `nestingTooDeep`, `tooManyValues`,
  ///   `fileTooLarge`.
  public func parse(_ bytes: [UInt8], path: String, options: ParseOptions) throws(StrataError) -> Document {
    guard bytes.count <= options.maxFileSize else {
      throw StrataError(
        .fileTooLarge,
        "the file is \(bytes.count) bytes, more than \(options.maxFileSize) (ParseOptions.maxFileSize)",
        path: path)
    }
    let body = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? Array(bytes.dropFirst(3)) : bytes
    var text = YAMLText(body)
    guard let string = String(validating: body, as: UTF8.self) else {
      throw YAMLErrors.invalidUTF8(in: text, path: path)
    }
    let hasAliases = try YAMLPreflight.check(body, path: path, maxDepth: options.maxDepth)
    let root: Node?
    do {
      let parser = try Parser(yaml: string, resolver: Self.resolver, encoding: .utf8)
      root = try parser.singleRoot()
    } catch let error as YamlError {
      throw YAMLErrors.strataError(error, text: &text, string: string, path: path)
    } catch {
      throw StrataError(.syntax, "\(error)", path: path)
    }
    var builder = YAMLTreeBuilder(path: path, text: text, options: options, hasAliases: hasAliases)
    let tree = try builder.root(root)
    return Document(path: path, root: tree, diagnostics: builder.diagnostics)
  }

  /// Serializes a table as block-style YAML. Strings the core schema would read as another type
  /// (`"true"`, `"8080"`, `"~"`, `""`) are quoted; dates are written as ISO 8601 text and data as
  /// base64 text (a YAML file has neither type in the core schema).
  /// - Throws: ``StrataError`` `typeMismatch` when the value is not a table, `nestingTooDeep` past 512
  ///   levels.
  public func serialize(_ value: SettingValue) throws(StrataError) -> [UInt8] {
    try YAMLSerializer.serialize(value)
  }

  /// The core schema's resolution (YAML 1.2), which Yams applies to keys when it compares them, and
  /// the merge key `<<`.
  static let resolver: Resolver = {
    do {
      return try Resolver.basic
        .appending(.null, "^(?:~|null|Null|NULL|)$")
        .appending(.bool, "^(?:true|True|TRUE|false|False|FALSE)$")
        .appending(.int, "^(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)$")
        .appending(
          .float,
          "^(?:[-+]?(?:\\.[0-9]+|[0-9]+(?:\\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?|[-+]?\\.(?:inf|Inf|INF)|\\.(?:nan|NaN|NAN))$"
        )
        .appending(.merge, "^<<$")
    } catch {
      preconditionFailure("a core-schema pattern does not compile: \(error)")
    }
  }()
}
