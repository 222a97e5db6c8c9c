#if canImport(FoundationEssentials)
  public import FoundationEssentials
#else
  public import Foundation
#endif

/// A node of a configuration tree: a scalar, an array or a table, with the ``Origin`` it was read from.
///
/// Documents parsed from files, the environment layer and code defaults are all trees of
/// `SettingValue`. Equality compares content only; origins are ignored, so that a file that moves a key
/// to another line without changing it compares equal.
public struct SettingValue: Sendable, CustomStringConvertible {
  /// The content of a node.
  public enum Kind: Sendable, Equatable {
    /// Text. INI and dotenv files and environment variables produce only strings (and tables of them).
    case string(String)
    /// A signed 64-bit integer.
    case integer(Int)
    /// An integer above `Int.max`, up to 2^64 − 1 (property lists store unsigned 64-bit integers).
    /// Integers that fit in `Int` are always ``integer(_:)``.
    case unsignedInteger(UInt)
    /// A binary floating-point number.
    case double(Double)
    /// A boolean.
    case bool(Bool)
    /// A point in time (property lists).
    case date(Date)
    /// Raw bytes (property lists).
    case data(Data)
    /// An ordered list.
    case array([SettingValue])
    /// A table of named values, in file order.
    case table(SettingTable)
  }

  /// How a node is held: a content and an origin, or a string still in its file's bytes (the
  /// catalog's ParsingDesign article, "A string stays in its file"): a parser that has validated the file
  /// makes no `String` per value, and an origin that retains nothing beyond the file.
  enum Storage: Sendable {
    case node(Kind, Origin)
    case text(SourceText, start: UInt32, count: UInt32, line: UInt32, column: UInt32)
  }

  var storage: Storage

  /// The content.
  public var kind: Kind {
    get {
      switch storage {
      case .node(let kind, _): kind
      case .text(let text, let start, let count, _, _): .string(text.string(start, count))
      }
    }
    set { storage = .node(newValue, origin) }
  }

  /// Where this node was read from.
  public var origin: Origin {
    get {
      switch storage {
      case .node(_, let origin): origin
      case .text(let text, _, _, let line, let column):
        .file(path: text.path, line: Int(line), column: Int(column))
      }
    }
    set { storage = .node(kind, newValue) }
  }

  /// Creates a node.
  public init(_ kind: Kind, origin: Origin) {
    storage = .node(kind, origin)
  }

  /// A string value that is the bytes `start..<end` of a file (valid UTF-8, as its parser has checked),
  /// read at `line`:`column` of `text`'s path.
  init(text: SourceText, start: Int, end: Int, line: Int, column: Int) {
    if let start = UInt32(exactly: start), let count = UInt32(exactly: end - Int(start)),
      let line = UInt32(exactly: line), let column = UInt32(exactly: column)
    {
      storage = .text(text, start: start, count: count, line: line, column: column)
    } else {
      storage = .node(
        .string(text.string(from: start, to: end)), .file(path: text.path, line: line, column: column))
    }
  }

  /// An empty table with the given origin.
  package static func emptyTable(origin: Origin) -> SettingValue {
    SettingValue(.table(SettingTable()), origin: origin)
  }

  /// The table, if this node is one.
  public var table: SettingTable? {
    if case .node(.table(let table), _) = storage { return table }
    return nil
  }

  /// Whether this node is a table.
  var isTable: Bool {
    if case .node(.table, _) = storage { return true }
    return false
  }

  /// The name of the node's type, as used in messages (`string`, `integer`, `table`, …).
  public var typeName: String {
    guard case .node(let kind, _) = storage else { return "string" }
    return switch kind {
    case .string: "string"
    case .integer, .unsignedInteger: "integer"
    case .double: "double"
    case .bool: "bool"
    case .date: "date"
    case .data: "data"
    case .array: "array"
    case .table: "table"
    }
  }

  /// The node at a key below this one (`"server.tls.certPath"`, see ``SettingKey``), or `nil`.
  public func value(at key: String) -> SettingValue? {
    value(atComponents: SettingKey.names(in: key))
  }

  /// The node at a path of table keys below this one, or `nil`.
  func value(atComponents components: [String]) -> SettingValue? {
    guard !components.isEmpty else { return self }
    guard case .node(.table(let table), _) = storage else { return nil }
    return table.value(atComponents: components[...])
  }

  /// A short rendering of the content, for messages: strings are quoted, tables and arrays abbreviated.
  public var description: String {
    switch kind {
    case .string(let s): "\"\(s)\""
    case .integer(let i): String(i)
    case .unsignedInteger(let u): String(u)
    case .double(let d): String(d)
    case .bool(let b): b ? "true" : "false"
    case .date(let d): ISODateText.format(d)
    case .data(let d): "<\(d.count) bytes>"
    case .array(let a): "[\(a.map(\.description).joined(separator: ", "))]"
    case .table(let t): "{\(t.map { "\($0.key): \($0.value)" }.joined(separator: ", "))}"
    }
  }
}

extension SettingValue: Equatable {
  /// Compares content, ignoring origins at every level.
  public static func == (lhs: SettingValue, rhs: SettingValue) -> Bool {
    switch (lhs.storage, rhs.storage) {
    case (.node(let a, _), .node(let b, _)):
      return a == b
    case (.text(let a, let aStart, let aCount, _, _), .text(let b, let bStart, let bCount, _, _)):
      // Equal bytes are equal strings; different bytes may still be canonically equivalent.
      return SourceText.bytesEqual(a, aStart, aCount, b, bStart, bCount) || lhs.kind == rhs.kind
    default:
      return lhs.kind == rhs.kind
    }
  }
}

extension SettingTable {
  /// The node at a path of keys below this table: each level's table is taken from its entry in place,
  /// and only the last node is copied out (a store looks up every setting's key this way).
  fileprivate func value(atComponents components: ArraySlice<String>) -> SettingValue? {
    guard let first = components.first, let position = position(ofKey: first) else { return nil }
    guard components.count > 1 else { return storage[position].value }
    guard case .node(.table(let table), _) = storage[position].value.storage else { return nil }
    return table.value(atComponents: components.dropFirst())
  }
}
