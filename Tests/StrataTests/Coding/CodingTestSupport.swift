import Foundation
import Testing

@testable import Strata

/// The origin most coding tests give their nodes, so that every failure can be checked for its location.
let codingOrigin = Origin.file(path: "/etc/app/app.ini", line: 7, column: 9)

/// A string node, as INI files and environment variables produce.
func text(_ s: String, _ origin: Origin = codingOrigin) -> SettingValue {
  SettingValue(.string(s), origin: origin)
}

/// A node of any kind at ``codingOrigin``.
func node(_ kind: SettingValue.Kind, _ origin: Origin = codingOrigin) -> SettingValue {
  SettingValue(kind, origin: origin)
}

/// A table node of the given entries.
func table(_ entries: [(String, SettingValue)], _ origin: Origin = codingOrigin) -> SettingValue {
  SettingValue(.table(SettingTable(entries)), origin: origin)
}

/// Decodes with a fresh ``SettingDecoder``.
func decoded<T: Decodable>(_ type: T.Type, _ value: SettingValue, key: String = "a.b") throws -> T {
  try SettingDecoder().decode(type, from: value, key: key)
}

/// The error decoding throws, or `nil` (recorded as an issue) when decoding succeeds.
func decodingError<T: Decodable>(
  _ type: T.Type, _ value: SettingValue, key: String = "a.b",
  sourceLocation: SourceLocation = #_sourceLocation
) -> StrataError? {
  do {
    let result = try SettingDecoder().decode(type, from: value, key: key)
    Issue.record("expected a failure, decoded \(result)", sourceLocation: sourceLocation)
    return nil
  } catch {
    return error
  }
}

/// Checks that decoding fails with the code, located at the origin, and (when given) the exact message.
func expectFailure<T: Decodable>(
  _ type: T.Type, _ value: SettingValue, key: String = "a.b", code: StrataError.Code = .typeMismatch,
  message: String? = nil, at origin: Origin = codingOrigin, sourceLocation: SourceLocation = #_sourceLocation
) {
  guard let error = decodingError(type, value, key: key, sourceLocation: sourceLocation) else { return }
  #expect(error.code == code, "\(error)", sourceLocation: sourceLocation)
  if let message { #expect(error.message == message, sourceLocation: sourceLocation) }
  switch origin {
  case .file(let path, let line, let column):
    #expect(error.path == path, sourceLocation: sourceLocation)
    #expect(error.line == line, sourceLocation: sourceLocation)
    #expect(error.column == column, sourceLocation: sourceLocation)
  case .environment, .commandLine, .remote:
    #expect(error.path == origin.description, sourceLocation: sourceLocation)
    #expect(error.line == 0, sourceLocation: sourceLocation)
  case .codeDefault, .runtime:
    #expect(error.path == nil, sourceLocation: sourceLocation)
  }
}

/// A tree with every leaf turned into the text an INI file or environment variable would hold: scalars
/// as `ValueText` renders them, arrays of scalars in the `a, b, c` list form.
func asEnvironmentStrings(_ value: SettingValue) -> SettingValue {
  switch value.kind {
  case .table(let t):
    return SettingValue(
      .table(SettingTable(t.map { ($0.key, asEnvironmentStrings($0.value)) })), origin: value.origin)
  case .array(let items) where items.contains(where: { $0.isTable || $0.typeName == "array" }):
    return SettingValue(.array(items.map(asEnvironmentStrings)), origin: value.origin)
  default:
    return SettingValue(.string(ValueText.environment(value)), origin: value.origin)
  }
}
