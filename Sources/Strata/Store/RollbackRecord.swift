#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// A standing rollback as the state directory keeps it (`rollback.json`, beside the history), so that
/// a restart keeps it too: each key with the value put back and what the layers gave it then, both with
/// their origins. Secret keys are listed without values: a secret's value never leaves the process, so
/// their rollback ends with it.
struct RollbackRecord: Codable, Sendable, Equatable {
  struct Key: Codable, Sendable, Equatable {
    var key: String
    /// The value put back.
    var value: StoredValue
    /// What the layers gave the key when it was rolled back (`nil`: nothing).
    var undone: StoredValue?
  }

  /// Why, in words.
  var reason: String
  /// The generation rolled back to (of the run that rolled back).
  var healthyGeneration: Int
  var keys: [Key]
  /// Secret keys rolled back, not kept across a restart.
  var secretKeys: [String] = []

  /// The file's name in the state directory.
  static let fileName = "rollback.json"
  /// The largest file read back.
  static let maxBytes = 4 << 20
}

/// A ``SettingValue`` with its origin, as JSON: `kind` says how `text`, `items` and `names` read.
struct StoredValue: Codable, Sendable, Equatable {
  var kind: String
  var text: String?
  var items: [StoredValue]?
  var names: [String]?
  var origin: StoredOrigin

  /// The deepest value read back (a file written by this code is as deep as a setting's value).
  static let maxDepth = 64

  init(_ value: SettingValue) {
    origin = StoredOrigin(value.origin)
    switch value.kind {
    case .string(let text): (kind, self.text) = ("string", text)
    case .integer(let number): (kind, text) = ("integer", String(number))
    case .unsignedInteger(let number): (kind, text) = ("unsigned", String(number))
    case .double(let number): (kind, text) = ("double", "\(number)")
    case .bool(let flag): (kind, text) = ("bool", flag ? "true" : "false")
    case .date(let date): (kind, text) = ("date", "\(date.timeIntervalSince1970)")
    case .data(let data): (kind, text) = ("data", data.base64EncodedString())
    case .array(let elements): (kind, items) = ("array", elements.map(StoredValue.init))
    case .table(let table):
      kind = "table"
      names = table.map(\.key)
      items = table.map { StoredValue($0.value) }
    }
  }

  /// The value, or `nil` when the record does not describe one (a file edited by hand, cut short).
  func value(depth: Int = 0) -> SettingValue? {
    guard depth < Self.maxDepth, let origin = origin.origin else { return nil }
    let kind: SettingValue.Kind
    switch self.kind {
    case "string": guard let text else { return nil }; kind = .string(text)
    case "integer": guard let number = text.flatMap({ Int($0) }) else { return nil }; kind = .integer(number)
    case "unsigned":
      guard let number = text.flatMap({ UInt($0) }) else { return nil }; kind = .unsignedInteger(number)
    case "double": guard let number = text.flatMap({ Double($0) }) else { return nil }; kind = .double(number)
    case "bool": guard text == "true" || text == "false" else { return nil }; kind = .bool(text == "true")
    case "date":
      guard let seconds = text.flatMap({ Double($0) }) else { return nil }
      kind = .date(Date(timeIntervalSince1970: seconds))
    case "data":
      guard let data = text.flatMap({ Data(base64Encoded: $0) }) else { return nil }; kind = .data(data)
    case "array":
      guard let items else { return nil }
      var elements: [SettingValue] = []
      for item in items {
        guard let element = item.value(depth: depth + 1) else { return nil }
        elements.append(element)
      }
      kind = .array(elements)
    case "table":
      guard let items, let names, items.count == names.count else { return nil }
      var entries: [(String, SettingValue)] = []
      for (name, item) in zip(names, items) {
        guard let element = item.value(depth: depth + 1) else { return nil }
        entries.append((name, element))
      }
      kind = .table(SettingTable(entries))
    default: return nil
    }
    return SettingValue(kind, origin: origin)
  }
}

/// An ``Origin`` as JSON.
struct StoredOrigin: Codable, Sendable, Equatable {
  var kind: String
  var path: String?
  var line: Int?
  var column: Int?
  var name: String?
  var key: String?
  var revision: Int?

  init(_ origin: Origin) {
    switch origin {
    case .file(let path, let line, let column):
      (kind, self.path, self.line, self.column) = ("file", path, line, column)
    case .environment(let variable): (kind, name) = ("environment", variable)
    case .commandLine(let option): (kind, name) = ("commandLine", option)
    case .remote(let source, let key, let revision):
      (kind, name, self.key, self.revision) = ("remote", source, key, revision)
    case .codeDefault: kind = "default"
    case .runtime: kind = "runtime"
    }
  }

  /// The origin, or `nil` when the record does not describe one.
  var origin: Origin? {
    switch kind {
    case "file":
      guard let path, let line, let column else { return nil }
      return .file(path: path, line: line, column: column)
    case "environment": return name.map { .environment(variable: $0) }
    case "commandLine": return name.map { .commandLine(option: $0) }
    case "remote":
      guard let name, let key else { return nil }
      return .remote(source: name, key: key, revision: revision)
    case "default": return .codeDefault
    case "runtime": return .runtime
    default: return nil
    }
  }
}
