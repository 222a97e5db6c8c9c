public import Strata

/// How an etcd source reads each value: as one string, as a JSON value, or as a document in any
/// ``Strata/ConfigFormat``.
///
/// <!-- snippet: Integrations/Tests/StrataIntegrationsTests/DocSnippets/IntegrationSnippets.swift#EtcdValueFormat -->
/// ```swift
/// // "8080" → 8080 for an Int setting
/// let strings = EtcdLayer(prefix: "/config/myapp/", valueFormat: .string)
/// let json = EtcdLayer(prefix: "/config/myapp/", valueFormat: .json)  // 8080, true, [1, 2], {"host": "…"}
/// let ini = FormatRegistry.standard.format(named: "ini")!
/// let documents = EtcdLayer(prefix: "/config/myapp/", valueFormat: .document(ini))
/// ```
public struct EtcdValueFormat: Sendable {
  enum Kind: Sendable {
    case string
    case json
    case document(any ConfigFormat)
  }

  let kind: Kind

  /// Every value is one string (UTF-8), converted to a setting's declared type as environment values
  /// are (`"8080"` → 8080, `"yes"` → `true`, `"a, b"` → `["a", "b"]`).
  public static let string = EtcdValueFormat(kind: .string)

  /// Every value is a JSON value: a scalar (`8080`, `"text"`, `true`), an array, or an object, which
  /// becomes a table below the key.
  public static let json = EtcdValueFormat(kind: .json)

  /// Every value is a whole document in `format` (its table goes below the key).
  public static func document(_ format: any ConfigFormat) -> EtcdValueFormat {
    EtcdValueFormat(kind: .document(format))
  }

  /// Strata's JSON format, which `.json` values are read with.
  private static let jsonFormat = FormatRegistry.standard.format(named: "json")!

  /// Parses one value; `path` names it in positions (`etcd:/config/myapp/server/port`).
  func parse(_ bytes: [UInt8], path: String, options: ParseOptions) throws(StrataError) -> (
    value: SettingValue, warnings: [Diagnostic]
  ) {
    let origin = Origin.file(path: path, line: 1, column: 1)
    switch kind {
    case .string:
      guard let text = String(validating: bytes, as: UTF8.self) else {
        throw StrataError(.invalidUTF8, "the value is not valid UTF-8", path: path, line: 1, column: 1)
      }
      return (SettingValue(.string(text), origin: origin), [])
    case .document(let format):
      let document = try format.parse(bytes, path: path, options: options)
      return (document.root, document.diagnostics)
    case .json:
      return try Self.parseJSONValue(bytes, path: path, options: options)
    }
  }

  /// A JSON value of any kind. An object goes to Strata's JSON format as it is; any other value is
  /// parsed as the one member of `{"": VALUE}`, and refused unless that object has exactly that member
  /// (so that `1, "x": 2` cannot pass for a value), with positions on the first line shifted back.
  private static func parseJSONValue(_ bytes: [UInt8], path: String, options: ParseOptions)
    throws(StrataError)
    -> (value: SettingValue, warnings: [Diagnostic])
  {
    let format = Self.jsonFormat
    let isSpace: (UInt8) -> Bool = { $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }
    if bytes.first(where: { !isSpace($0) }) == UInt8(ascii: "{") {
      let document = try format.parse(bytes, path: path, options: options)
      return (document.root, document.diagnostics)
    }
    let opening = Array(#"{"":"#.utf8)
    let wrapped = opening + bytes + Array("\n}".utf8)
    let document: Document
    do {
      document = try format.parse(wrapped, path: path, options: options)
    } catch {
      var shifted = error
      if shifted.line == 1 { shifted.column = max(1, shifted.column - opening.count) }
      throw shifted
    }
    guard let table = document.root.table, table.count == 1, let value = table[""],
      document.diagnostics.isEmpty
    else {
      throw StrataError(.syntax, "expected one JSON value", path: path, line: 1, column: 1)
    }
    return (value, [])
  }
}
