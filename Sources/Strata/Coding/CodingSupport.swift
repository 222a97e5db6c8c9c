/// Names and keys shared by ``SettingDecoder`` and ``SettingEncoder``.
enum CodingSupport {
  /// A type's name as people write it in code: `Int`, `[String]`, `[String: Int]`, `Int?`, `Config`.
  ///
  /// `String(describing:)` spells generics out (`Array<String>`); messages read better in the sugared
  /// form the program used.
  static func typeName(_ type: Any.Type) -> String {
    sugared(String(describing: type))
  }

  /// Rewrites `Array<X>`, `Dictionary<K, V>` and `Optional<X>` (at any depth) to their sugar.
  static func sugared(_ name: String) -> String {
    guard let open = name.firstIndex(of: "<"), name.last == ">" else { return name }
    let base = name[..<open]
    let inner = name[name.index(after: open)..<name.index(before: name.endIndex)]
    let arguments = splitTopLevel(inner).map { sugared(String($0.drop { $0 == " " })) }
    switch (base, arguments.count) {
    case ("Array", 1): return "[\(arguments[0])]"
    case ("Optional", 1): return "\(arguments[0])?"
    case ("Dictionary", 2): return "[\(arguments[0]): \(arguments[1])]"
    default: return "\(base)<\(arguments.joined(separator: ", "))>"
    }
  }

  /// Splits generic arguments on the commas that are not inside nested angle brackets.
  private static func splitTopLevel(_ text: Substring) -> [Substring] {
    var parts: [Substring] = []
    var depth = 0
    var start = text.startIndex
    for index in text.indices {
      switch text[index] {
      case "<": depth += 1
      case ">": depth -= 1
      case "," where depth == 0:
        parts.append(text[start..<index])
        start = text.index(after: index)
      default: break
      }
    }
    parts.append(text[start...])
    return parts
  }

  /// The full dotted key for messages: the key the setting was read at, then the coding path, with
  /// array positions as `[0]` (`servers[0].port`).
  static func dottedKey(_ base: String, _ path: [any CodingKey]) -> String {
    var key = base
    for component in path {
      if let index = component.intValue, component.stringValue == String(index), component is IndexKey {
        key += "[\(index)]"
      } else {
        key = SettingKey.appending(component.stringValue, to: key)
      }
    }
    return key.isEmpty ? "the root value" : key
  }

  /// The raw values of a `CaseIterable` enum (or an optional one), for "one of" hints; `nil` for other
  /// types.
  static func caseNames(_ type: Any.Type) -> [String]? {
    if let optional = type as? any OptionalPayload.Type { return caseNames(optional.payloadType) }
    guard let iterable = type as? any CaseIterable.Type else { return nil }
    return rawValues(of: iterable)
  }

  /// Every case of a `CaseIterable` type.
  static func allCases(of type: any CaseIterable.Type) -> [Any] {
    func cases<T: CaseIterable>(_ type: T.Type) -> [Any] { T.allCases.map { $0 } }
    return cases(type)
  }

  private static func rawValues<T: CaseIterable>(of type: T.Type) -> [String]? {
    let names = T.allCases.compactMap { value -> String? in
      guard let raw = value as? any RawRepresentable else { return nil }
      return String(describing: raw.rawValue)
    }
    return names.isEmpty ? nil : names
  }
}

/// A position in an array, as a coding key.
struct IndexKey: CodingKey {
  var intValue: Int?
  var stringValue: String { String(intValue ?? 0) }

  init(_ index: Int) { intValue = index }
  init?(intValue: Int) { self.intValue = intValue }
  init?(stringValue: String) {
    guard let index = Int(stringValue) else { return nil }
    intValue = index
  }
}

/// A table key, as a coding key (for `superDecoder()` and `superEncoder()`).
struct NameKey: CodingKey {
  var stringValue: String
  var intValue: Int? { nil }

  init(_ name: String) { stringValue = name }
  init?(stringValue: String) { self.stringValue = stringValue }
  init?(intValue: Int) { nil }
}

/// Dictionaries keyed by `String`, whose tables are written with sorted keys so that output does not
/// change from run to run with the dictionary's hash order.
protocol StringKeyedDictionary {}

extension Dictionary: StringKeyedDictionary where Key == String {}

extension CodingSupport {
  /// Whether values of `type` are never structs with fields (numbers, text, `Bool`, `Duration`, `ByteSize`, and
  /// optionals of them): registering such a setting learns no fields without encoding its default.
  static func isScalar(_ type: Any.Type) -> Bool {
    let type = (type as? any OptionalPayload.Type)?.payloadType ?? type
    return type is any Numeric.Type || type is any StringProtocol.Type || type == Bool.self
      || type == Duration.self || type == ByteSize.self
  }
}

/// `Optional`'s payload type, so that an optional enum's cases can be listed.
protocol OptionalPayload {
  static var payloadType: Any.Type { get }
}

extension Optional: OptionalPayload {
  static var payloadType: Any.Type { Wrapped.self }
}
