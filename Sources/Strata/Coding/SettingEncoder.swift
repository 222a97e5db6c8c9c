#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// Encodes Swift values as readable ``SettingValue`` trees, the inverse of ``SettingDecoder``.
///
/// Structs become tables with keys in declaration order (dictionaries with sorted keys, so output is
/// stable), arrays and sets become arrays, integers of every width `.integer`, `Float` and `Double`
/// `.double`, `Date` `.date`, `Data` `.data`, `URL` a string (the path, for file URLs), `Duration` its
/// ``DurationText`` form (`1h30m`), and raw-value enums their raw value. Nothing is stored as an opaque
/// blob, so every encoded setting can be dumped, diffed and edited by hand.
///
/// A `nil` optional property is left out of its table; a `nil` top-level value encodes as `nil`. Values
/// a tree cannot hold throw ``StrataError`` with code `invalidValue`: a `UInt64` above `Int.max`, or
/// `nil` inside an array.
struct SettingEncoder: Sendable {
  /// Creates an encoder.
  init() {}

  /// Encodes a value as a tree whose every node has the given origin.
  /// - Parameters:
  ///   - value: the value to encode.
  ///   - origin: the origin of every node; values the program sets at run time are `.runtime`, code
  ///     defaults `.codeDefault`.
  /// - Returns: the tree, or `nil` when the value is a `nil` optional.
  /// - Throws: ``StrataError`` (`invalidValue`) when the value cannot be held by a tree.
  func encode<T: Encodable>(_ value: T, origin: Origin = .runtime) throws(StrataError)
    -> SettingValue?
  {
    let context = EncodingContext(origin: origin)
    let box = EncodingBox()
    try context.encode(value, into: box, path: [])
    return try context.materialize(box, path: [])
  }

  /// The fields of a struct value, at any depth, with their types (a `nil` optional field included);
  /// `nil` when the value is not a struct or cannot be encoded.
  func fieldShape<T: Encodable>(of value: T) -> FieldShape? {
    var context = EncodingContext(origin: .codeDefault)
    context.recordsTypes = true
    let box = EncodingBox()
    do {
      try context.encode(value, into: box, path: [])
    } catch {
      return nil
    }
    let shape = FieldShape(box)
    guard case .fields = shape else { return nil }
    return shape
  }
}

/// A node under construction. Containers hand out boxes before their contents are known (nested
/// containers, `superEncoder`), so nodes are reference types until ``EncodingContext/materialize``.
final class EncodingBox {
  enum Content {
    /// Nothing encoded yet; materializes as an empty table, like a struct without properties.
    case empty
    /// An encoded `nil`.
    case null
    case leaf(SettingValue.Kind)
    case table(TableBox)
    case array(ArrayBox)
  }

  var content: Content = .empty
  /// Set for `[String: X]`, whose keys come in hash order.
  var sortsKeys = false
  /// The declared type's name and, for a `CaseIterable` enum, its cases: recorded only when the
  /// encoding is for a ``FieldShape``.
  var typeName: String?
  var allowedValues: [String]?

  /// The table this box holds, turning an empty box into one.
  func table() -> TableBox {
    if case .table(let table) = content { return table }
    let table = TableBox()
    content = .table(table)
    return table
  }

  /// The array this box holds, turning an empty box into one.
  func array() -> ArrayBox {
    if case .array(let array) = content { return array }
    let array = ArrayBox()
    content = .array(array)
    return array
  }
}

/// The entries of a table under construction, in the order first set.
final class TableBox {
  private(set) var keys: [String] = []
  private(set) var boxes: [String: EncodingBox] = [:]

  /// A fresh box for a key; encoding a key again replaces its value and keeps its position.
  func box(for key: String) -> EncodingBox {
    let box = EncodingBox()
    if boxes.updateValue(box, forKey: key) == nil { keys.append(key) }
    return box
  }
}

/// The elements of an array under construction.
final class ArrayBox {
  var items: [EncodingBox] = []

  func append() -> EncodingBox {
    let box = EncodingBox()
    items.append(box)
    return box
  }
}

/// What every container of one encode shares.
struct EncodingContext {
  var origin: Origin
  /// Whether each box records its declared type (for ``FieldShape``; ordinary encoding skips the cost).
  var recordsTypes = false

  /// Records the type a box was encoded from; the outermost one wins (a raw-value enum encodes its
  /// raw value into the same box).
  func recordType<T>(_ type: T.Type, in box: EncodingBox) {
    guard recordsTypes, box.typeName == nil else { return }
    box.typeName = CodingSupport.typeName(T.self)
    box.allowedValues = CodingSupport.caseNames(T.self)
  }

  /// The one path every value goes through: leaves directly, everything else by its own `encode(to:)`.
  func encode<T: Encodable>(_ value: T, into box: EncodingBox, path: [any CodingKey])
    throws(StrataError)
  {
    recordType(T.self, in: box)
    if let kind = try leaf(value, path: path) {
      box.content = .leaf(kind)
      return
    }
    do {
      try value.encode(to: NodeEncoder(box: box, codingPath: path, context: self))
    } catch let error as StrataError {
      throw error
    } catch {
      let detail = (error as? EncodingError).map(Self.detail) ?? String(describing: error)
      throw failure("cannot encode \(CodingSupport.typeName(T.self)) for \(key(path)): \(detail)")
    }
    if value is any StringKeyedDictionary { box.sortsKeys = true }
  }

  /// Leaf types, including those whose own `Codable` form is not readable (`Date` as a number,
  /// `Duration` as two integers, `URL` as a table); `nil` for any other type.
  private func leaf<T>(_ value: T, path: [any CodingKey]) throws(StrataError) -> SettingValue.Kind? {
    switch value {
    case let value as String: return .string(value)
    case let value as Bool: return .bool(value)
    case let value as any FixedWidthInteger:
      guard let integer = Int(exactly: value) else {
        throw failure(
          "cannot encode \(CodingSupport.typeName(T.self)) \(value) for \(key(path)): out of range "
            + "(integer settings hold at most \(Int.max))")
      }
      return .integer(integer)
    case let value as any BinaryFloatingPoint: return .double(Self.double(value))
    case let value as Duration: return .string(DurationText.format(value))
    case let value as ByteSize: return .string(ByteSizeText.format(value.bytes))
    case let value as Date: return .date(value)
    case let value as Data: return .data(value)
    case let value as URL:
      // A local file URL is written as its path, which reads back as the same file URL; any other (a
      // file URL with a host or an empty path too) as its absolute string.
      let path = value.path(percentEncoded: false)
      let isLocalPath = value.isFileURL && path.hasPrefix("/") && (value.host() ?? "").isEmpty
      return .string(isLocalPath ? path : value.absoluteString)
    default: return nil
    }
  }

  private static func double<F: BinaryFloatingPoint>(_ value: F) -> Double { Double(value) }

  /// The finished tree for a box; `nil` for an encoded `nil`.
  func materialize(_ box: EncodingBox, path: [any CodingKey]) throws(StrataError) -> SettingValue? {
    switch box.content {
    case .null:
      return nil
    case .empty:
      return .emptyTable(origin: origin)
    case .leaf(let kind):
      return SettingValue(kind, origin: origin)
    case .table(let table):
      var entries: [(String, SettingValue)] = []
      for name in box.sortsKeys ? table.keys.sorted() : table.keys {
        // A nil property is simply not in the table, as if the file did not set it.
        if let value = try materialize(table.boxes[name]!, path: path + [NameKey(name)]) {
          entries.append((name, value))
        }
      }
      return SettingValue(.table(SettingTable(entries)), origin: origin)
    case .array(let array):
      var items: [SettingValue] = []
      for (index, item) in array.items.enumerated() {
        guard let value = try materialize(item, path: path + [IndexKey(index)]) else {
          throw failure("cannot encode nil in an array, at \(key(path + [IndexKey(index)]))")
        }
        items.append(value)
      }
      return SettingValue(.array(items), origin: origin)
    }
  }

  func key(_ path: [any CodingKey]) -> String { CodingSupport.dottedKey("", path) }

  func failure(_ message: String) -> StrataError {
    ScalarConversion.error(.invalidValue, message, at: origin)
  }

  private static func detail(_ error: EncodingError) -> String {
    switch error {
    case .invalidValue(_, let context): context.debugDescription
    @unknown default: String(describing: error)
    }
  }
}

/// An `Encoder` writing into one box.
struct NodeEncoder: Encoder {
  var box: EncodingBox
  var codingPath: [any CodingKey]
  var context: EncodingContext
  var userInfo: [CodingUserInfoKey: Any] { [:] }

  func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
    KeyedEncodingContainer(KeyedNodeEncodingContainer<Key>(encoder: self, table: box.table()))
  }

  func unkeyedContainer() -> any UnkeyedEncodingContainer {
    UnkeyedNodeEncodingContainer(encoder: self, array: box.array())
  }

  func singleValueContainer() -> any SingleValueEncodingContainer {
    SingleNodeEncodingContainer(encoder: self)
  }

  /// An encoder for a child box.
  func child(_ box: EncodingBox, key: any CodingKey) -> NodeEncoder {
    NodeEncoder(box: box, codingPath: codingPath + [key], context: context)
  }
}
