import FoundationEssentials

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

  /// The content.
  public var kind: Kind
  /// Where this node was read from.
  public var origin: Origin

  /// Creates a node.
  public init(_ kind: Kind, origin: Origin) {
    self.kind = kind
    self.origin = origin
  }

  /// An empty table with the given origin.
  public static func emptyTable(origin: Origin) -> SettingValue {
    SettingValue(.table(SettingTable()), origin: origin)
  }

  /// The table, if this node is one.
  public var table: SettingTable? {
    if case .table(let table) = kind { return table }
    return nil
  }

  /// Whether this node is a table.
  public var isTable: Bool {
    if case .table = kind { return true }
    return false
  }

  /// The name of the node's type, as used in messages (`string`, `integer`, `table`, …).
  public var typeName: String {
    switch kind {
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
  public func value(atComponents components: [String]) -> SettingValue? {
    var node = self
    for component in components {
      guard case .table(let table) = node.kind, let next = table[component] else { return nil }
      node = next
    }
    return node
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
    lhs.kind == rhs.kind
  }
}
