#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// Decodes Swift values from a ``SettingValue`` tree, converting each node against the declared type
/// (the rules are listed at ``SettingValue/decoded(as:key:)``).
struct SettingDecoder: Sendable {
  /// Creates a decoder.
  init() {}

  /// Decodes a value of the given type from a node.
  /// - Parameters:
  ///   - type: the type the program declared.
  ///   - value: the node, usually the effective value of a setting.
  ///   - key: the dotted key the node was read at (`server.tls`), used in messages.
  /// - Throws: ``StrataError`` when the node does not fit the type.
  func decode<T: Decodable>(_ type: T.Type, from value: SettingValue, key: String)
    throws(StrataError) -> T
  {
    try DecodingContext(key: key).decode(type, from: value, path: [])
  }

  /// Decodes a value over a default's tree: a struct field (at any depth) that `value` does not hold is
  /// read from `defaultTree`, as `#[serde(default)]` and swift-configuration do. A field that `value`
  /// holds is read from it alone, so that an invalid one is an error at its position. Arrays and
  /// dictionaries that `value` holds replace the default's whole (their entries are data, not fields).
  func decode<T: Decodable>(
    _ type: T.Type, from value: SettingValue, over defaultTree: SettingValue, key: String
  )
    throws(StrataError) -> T
  {
    try DecodingContext(key: key).decode(type, from: value, path: [], fallback: defaultTree)
  }
}

/// What every container of one decode shares.
struct DecodingContext {
  /// The key the decoded value was read at; coding paths are appended to it in messages.
  var key: String

  /// The one path every value goes through: leaves by ``ScalarConversion``, everything else by the
  /// type's own `init(from:)` over a ``NodeDecoder``.
  /// - Parameter displayType: the type to name in messages about a leaf, when that is not `T` (a
  ///   raw-value enum reads a `String`, but the user wrote the enum).
  /// - Parameter fallback: the default's tree at this node, whose fields stand in for those `node` does
  ///   not hold (dropped for a dictionary, whose keys are data).
  func decode<T: Decodable>(
    _ type: T.Type, from node: SettingValue, path: [any CodingKey], displayType: Any.Type? = nil,
    fallback: SettingValue? = nil
  ) throws(StrataError) -> T {
    let site = ScalarConversion.Site(baseKey: key, path: path, type: displayType ?? T.self)
    if let leaf = try leaf(T.self, node, site) { return leaf }
    var decoder = NodeDecoder(node: node, codingPath: path, context: self, expectedType: T.self)
    if !(T.self is any DictionaryMarker.Type), fallback?.isTable == true { decoder.fallback = fallback }
    do {
      return try T(from: decoder)
    } catch let error as StrataError {
      throw error
    } catch {
      let site = ScalarConversion.Site(baseKey: key, path: path, type: T.self)
      throw translate(error, type: T.self, node: node, site: site)
    }
  }

  /// Leaf types, including those whose own `Codable` form is not what people write (`Date` as a
  /// number, `Duration` as two integers, `URL` as a table); `nil` for any other type.
  private func leaf<T>(_ type: T.Type, _ node: SettingValue, _ site: ScalarConversion.Site)
    throws(StrataError) -> T?
  {
    if T.self == String.self { return try ScalarConversion.string(node, site) as? T }
    if T.self == Bool.self { return try ScalarConversion.bool(node, site) as? T }
    if let integer = T.self as? any FixedWidthInteger.Type {
      return try ScalarConversion.integer(integer, node, site) as? T
    }
    if let floatingPoint = T.self as? any BinaryFloatingPoint.Type {
      return try ScalarConversion.floatingPoint(floatingPoint, node, site) as? T
    }
    if T.self == Duration.self { return try ScalarConversion.duration(node, site) as? T }
    if T.self == ByteSize.self { return try ScalarConversion.byteSize(node, site) as? T }
    if T.self == Date.self { return try ScalarConversion.date(node, site) as? T }
    if T.self == Data.self { return try ScalarConversion.data(node, site) as? T }
    if T.self == URL.self { return try ScalarConversion.url(node, site) as? T }
    return nil
  }

  /// Turns an error thrown by a type's own `init(from:)` into a located ``StrataError``.
  private func translate(
    _ error: any Error, type: Any.Type, node: SettingValue, site: ScalarConversion.Site
  ) -> StrataError {
    guard let error = error as? DecodingError else {
      return ScalarConversion.mismatch(node, site, note: String(describing: error), code: .invalidValue)
    }
    switch error {
    case .dataCorrupted(let context):
      // A raw-value enum given an unknown raw value: its synthesized description says nothing the
      // message does not, so list the cases instead when they can be listed.
      if type is any RawRepresentable.Type {
        let note = CodingSupport.caseNames(type).map { "one of: " + $0.joined(separator: ", ") }
        return ScalarConversion.mismatch(node, site, note: note, code: .invalidValue)
      }
      return ScalarConversion.mismatch(node, site, note: context.debugDescription, code: .invalidValue)
    case .typeMismatch(_, let context), .valueNotFound(_, let context), .keyNotFound(_, let context):
      return ScalarConversion.mismatch(node, site, note: context.debugDescription)
    @unknown default:
      return ScalarConversion.mismatch(node, site, note: String(describing: error))
    }
  }

  /// The error for a value that is not there: a missing key, or an array shorter than the type needs.
  func missing(_ type: Any.Type, path: [any CodingKey], in container: SettingValue) -> StrataError {
    ScalarConversion.error(
      .notFound,
      "expected \(CodingSupport.typeName(type)) for \(CodingSupport.dottedKey(key, path)), found nothing",
      at: container.origin)
  }
}

/// A `Decoder` over one node.
struct NodeDecoder: Decoder {
  var node: SettingValue
  var codingPath: [any CodingKey]
  var context: DecodingContext
  /// The type being decoded from this node, named when the node has the wrong shape for a container.
  var expectedType: Any.Type
  /// The default's table at this node: the fields a keyed container reads when the node lacks them.
  var fallback: SettingValue?
  var userInfo: [CodingUserInfoKey: Any] { [:] }

  private var site: ScalarConversion.Site {
    .init(baseKey: context.key, path: codingPath, type: expectedType)
  }

  func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
    KeyedDecodingContainer(
      KeyedNodeContainer<Key>(decoder: self, table: try table(), fallback: fallback?.table ?? SettingTable()))
  }

  func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
    UnkeyedNodeContainer(decoder: self, items: try items())
  }

  func singleValueContainer() throws -> any SingleValueDecodingContainer {
    SingleNodeContainer(decoder: self)
  }

  /// A decoder for a child node.
  func child(_ node: SettingValue, key: any CodingKey, type: Any.Type, fallback: SettingValue? = nil)
    -> NodeDecoder
  {
    NodeDecoder(
      node: node, codingPath: codingPath + [key], context: context, expectedType: type, fallback: fallback)
  }

  /// The node as a table. Text that holds a JSON object is parsed, so that files written when a struct
  /// setting was stored as a JSON blob still load; its nodes all take the text's origin, since positions
  /// inside the text would not match the file.
  func table() throws(StrataError) -> SettingTable {
    switch node.kind {
    case .table(let table):
      return table
    case .string(let text) where DurationText.trimmed(text).hasPrefix("{"):
      let root: SettingValue
      do {
        root = try JSONFormat().parse(
          Array(text.utf8), path: node.origin.description, options: ParseOptions()
        )
        .root
      } catch {
        throw ScalarConversion.mismatch(node, site, note: "not a JSON object: \(error.message)")
      }
      guard case .table(let table) = Self.reoriginated(root, node.origin).kind else {
        throw ScalarConversion.mismatch(node, site)
      }
      return table
    default:
      throw ScalarConversion.mismatch(node, site)
    }
  }

  /// The node as a list of elements: an array, or text split on commas for the INI and environment
  /// spelling of a list. Text that starts with `[` and ends with `]` is a JSON array, as a variable
  /// holding `["a","b"]` means: parsed, or refused when it is not JSON, never split on its commas.
  func items() throws(StrataError) -> [SettingValue] {
    switch node.kind {
    case .array(let items):
      return items
    case .string(let text):
      let trimmed = DurationText.trimmed(text)
      if trimmed.isEmpty { return [] }
      if trimmed.hasPrefix("["), trimmed.hasSuffix("]") {
        let root: SettingValue
        do {
          // A JSON document is an object: the array is read as the value of one key.
          root = try JSONFormat().parse(
            Array(("{\"list\": " + trimmed + "}").utf8), path: node.origin.description,
            options: ParseOptions()
          )
          .root
        } catch {
          throw ScalarConversion.mismatch(node, site, note: "not a JSON array: \(error.message)")
        }
        guard
          case .array(let items) = root.value(at: "list").map({ Self.reoriginated($0, node.origin) })?.kind
        else {
          throw ScalarConversion.mismatch(node, site)
        }
        return items
      }
      return text.split(separator: ",", omittingEmptySubsequences: false).map {
        SettingValue(.string(String(DurationText.trimmed(String($0)))), origin: node.origin)
      }
    default:
      throw ScalarConversion.mismatch(node, site)
    }
  }

  private static func reoriginated(_ value: SettingValue, _ origin: Origin) -> SettingValue {
    switch value.kind {
    case .table(let table):
      return SettingValue(
        .table(SettingTable(table.map { ($0.key, reoriginated($0.value, origin)) })), origin: origin)
    case .array(let items):
      return SettingValue(.array(items.map { reoriginated($0, origin) }), origin: origin)
    default:
      return SettingValue(value.kind, origin: origin)
    }
  }
}

/// The single-value container: the node itself.
struct SingleNodeContainer: SingleValueDecodingContainer {
  var decoder: NodeDecoder
  var codingPath: [any CodingKey] { decoder.codingPath }

  /// Trees have no null; an absent value is an absent key.
  func decodeNil() -> Bool { false }

  func decode<T: Decodable>(_ type: T.Type) throws -> T { try value(type) }

  private func value<T: Decodable>(_ type: T.Type) throws(StrataError) -> T {
    // Messages name the type the user declared (the enum, not its raw `String`), except for the
    // `Optional` wrapper, whose payload is the better name.
    let display: Any.Type = decoder.expectedType is any OptionalMarker.Type ? T.self : decoder.expectedType
    return try decoder.context.decode(
      T.self, from: decoder.node, path: codingPath, displayType: display, fallback: decoder.fallback)
  }

  func decode(_ type: Bool.Type) throws -> Bool { try value(type) }
  func decode(_ type: String.Type) throws -> String { try value(type) }
  func decode(_ type: Double.Type) throws -> Double { try value(type) }
  func decode(_ type: Float.Type) throws -> Float { try value(type) }
  func decode(_ type: Int.Type) throws -> Int { try value(type) }
  func decode(_ type: Int8.Type) throws -> Int8 { try value(type) }
  func decode(_ type: Int16.Type) throws -> Int16 { try value(type) }
  func decode(_ type: Int32.Type) throws -> Int32 { try value(type) }
  func decode(_ type: Int64.Type) throws -> Int64 { try value(type) }
  func decode(_ type: UInt.Type) throws -> UInt { try value(type) }
  func decode(_ type: UInt8.Type) throws -> UInt8 { try value(type) }
  func decode(_ type: UInt16.Type) throws -> UInt16 { try value(type) }
  func decode(_ type: UInt32.Type) throws -> UInt32 { try value(type) }
  func decode(_ type: UInt64.Type) throws -> UInt64 { try value(type) }
}

/// Marks `Dictionary`, whose keys are data: a table the layers set replaces the default's whole.
protocol DictionaryMarker {}

extension Dictionary: DictionaryMarker {}

/// Marks `Optional`, whose name messages skip in favour of its payload's.
protocol OptionalMarker {}

extension Optional: OptionalMarker {}

extension SettingValue {
  /// The tree as a value of `type`, converting each node against the type as a setting's value is
  /// converted (for a key the program knows only at run time, a custom layer's own checks).
  ///
  /// INI files and environment variables give only strings, so a leaf is read leniently wherever that is
  /// unambiguous, and strictly everywhere else:
  ///
  /// | type | accepted |
  /// |---|---|
  /// | `Int`, `Int8`…`UInt64` | integers in range; decimal text with an optional sign (`" -12 "`); integral doubles |
  /// | `Bool` | booleans; `true/false/yes/no/on/off/1/0` in any case; the integers 0 and 1 |
  /// | `Double`, `Float` | numbers; decimal text (`0.25`, `1e3`), but not `nan`, `inf` or hexadecimal |
  /// | `String` | strings; integers, doubles and booleans as their literal text |
  /// | `Date` | dates; ISO 8601 text (`2024-05-01T12:00:00Z`, fractional seconds and offsets allowed) |
  /// | `Data` | data; base64 text |
  /// | `URL` | text with a scheme (`https://…`); an absolute path (`/run/x.sock`) as a file URL |
  /// | `Duration` | duration text (`250ms`, `1h30m`, `1.5s`); integers and bare integer text as seconds |
  /// | arrays, sets | arrays; text `a, b, c` (split on commas, trimmed; empty text is an empty array); text `[…]` as a JSON array |
  /// | structs, `[String: X]` | tables; text holding a JSON object (settings once stored as a blob) |
  /// | `RawRepresentable` enums | their raw value, by the rules above |
  ///
  /// A missing key gives `nil` for an optional property. Anything else that does not fit throws a
  /// ``StrataError`` located at the offending node's origin (`env:NAME` for a variable), with a message
  /// such as `expected Int for server.port, found "80a"` or `expected UInt8 for a.b, found 300 (out of
  /// range)`. The code is `typeMismatch` when the value cannot be read as the type, `invalidValue` when it
  /// has the right shape but not an acceptable value (out of range, not a case of the enum), and `notFound`
  /// for a missing required key. No value is ever truncated, wrapped or replaced by a default.
  /// - Parameters:
  ///   - type: the type wanted.
  ///   - key: the dotted key the tree was read at (`server.tls`), used in messages.
  /// - Throws: ``StrataError`` when the tree does not fit the type.
  public func decoded<T: Decodable>(as type: T.Type, key: String) throws(StrataError) -> T {
    try SettingDecoder().decode(type, from: self, key: key)
  }
}
