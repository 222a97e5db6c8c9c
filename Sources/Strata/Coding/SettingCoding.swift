/// How a setting's type converts to and from a value tree, given at the declaration: for a type you do
/// not own (and cannot make `Codable`), or one you want written differently.
///
/// <!-- snippet: Tests/DocSnippets/CodingSymbolSnippets.swift#SettingCoding -->
/// ```swift
/// extension SettingCoding where Value == HostPort {
///   static let hostPort = SettingCoding.text(expected: "HOST:PORT") {
///     HostPort(parsing: $0)
///   } format: {
///     "\($0.host):\($0.port)"
///   }
/// }
/// struct ProxySettings: SettingsGroup {
///   @Setting(coding: .hostPort) var upstream = HostPort(host: "localhost", port: 8080)
/// }
/// ```
public struct SettingCoding<Value: Sendable>: Sendable {
  /// The two functions, behind one reference: every setting's box holds a coding (most of them the
  /// one shared by their type), and one word there is smaller than two closures.
  private let functions: Functions

  /// The value from a tree read at a key.
  var decode: @Sendable (SettingValue, String) throws(StrataError) -> Value { functions.decode }
  /// The tree written for a value.
  var encode: @Sendable (Value) throws(StrataError) -> SettingValue? { functions.encode }
  /// The value from a table read at a key, each field the table does not hold taken from the second
  /// tree (the encoded default); `nil` for codings that read the layers' tree as it is (custom ones).
  var decodeOverDefault: DecodeOverDefault? { functions.decodeOverDefault }

  typealias DecodeOverDefault =
    @Sendable (SettingValue, _ default: SettingValue, String) throws(StrataError) -> Value

  private final class Functions: Sendable {
    let decode: @Sendable (SettingValue, String) throws(StrataError) -> Value
    let encode: @Sendable (Value) throws(StrataError) -> SettingValue?
    let decodeOverDefault: DecodeOverDefault?

    init(
      decode: @escaping @Sendable (SettingValue, String) throws(StrataError) -> Value,
      encode: @escaping @Sendable (Value) throws(StrataError) -> SettingValue?,
      decodeOverDefault: DecodeOverDefault?
    ) {
      self.decode = decode
      self.encode = encode
      self.decodeOverDefault = decodeOverDefault
    }
  }

  /// A coding from two functions.
  /// - Parameters:
  ///   - decode: the value from a tree read at a key (throw a ``StrataError`` naming the key and the
  ///     tree's origin, never the text of the value, which may be a secret).
  ///   - encode: the tree written for a value (`nil`: nothing to write).
  public init(
    decode: @escaping @Sendable (SettingValue, _ key: String) throws(StrataError) -> Value,
    encode: @escaping @Sendable (Value) throws(StrataError) -> SettingValue?
  ) {
    functions = Functions(decode: decode, encode: encode, decodeOverDefault: nil)
  }

  /// A coding that can also read a table over the default's tree (``Setting``'s `Codable` coding).
  init(
    decode: @escaping @Sendable (SettingValue, String) throws(StrataError) -> Value,
    encode: @escaping @Sendable (Value) throws(StrataError) -> SettingValue?,
    decodeOverDefault: @escaping DecodeOverDefault
  ) {
    functions = Functions(decode: decode, encode: encode, decodeOverDefault: decodeOverDefault)
  }

  /// A coding through text: the value is written as a string and read from one (INI and environment
  /// values are strings already; a JSON or plist number or Bool is read as its text).
  /// - Parameters:
  ///   - expected: what the text looks like, for messages (`HOST:PORT`).
  ///   - parse: the value from its text, or `nil` when the text is not one.
  ///   - format: the text of a value.
  public static func text(
    expected: String, _ parse: @escaping @Sendable (String) -> Value?,
    format: @escaping @Sendable (Value) -> String
  ) -> SettingCoding {
    SettingCoding(
      decode: { (tree, key) throws(StrataError) -> Value in
        let text: String
        switch tree.kind {
        case .string(let string): text = string
        case .integer, .unsignedInteger, .double, .bool: text = tree.description
        default:
          let found = tree.isTable ? "a table" : "a list"
          throw located(
            StrataError(.typeMismatch, "expected \(expected) text for \(key), found \(found)"), tree.origin)
        }
        guard let value = parse(text) else {
          throw located(StrataError(.invalidValue, "expected \(expected) for \(key)"), tree.origin)
        }
        return value
      },
      encode: { value in SettingValue(.string(format(value)), origin: .runtime) })
  }
}

extension Setting {
  /// Declares a setting whose type converts through `coding` (see ``SettingCoding``).
  /// - Parameters:
  ///   - wrappedValue: the default.
  ///   - coding: how the type converts to and from a value tree.
  ///   - key: the key in its section (default: the property's name, in the group's key style).
  ///   - aliases: old keys of the setting, in its section, read when the key is absent.
  ///   - traits: ``SettingTraits`` such as `.secret`.
  ///   - help: a one-line description.
  ///   - validation: a check the value must pass.
  public init(
    wrappedValue: Value, coding: SettingCoding<Value>, key: String? = nil, aliases: [String] = [],
    traits: SettingTraits = [], help: String? = nil, validation: SettingValidation<Value>? = nil
  ) {
    self.init(
      default: wrappedValue, key: key, aliases: aliases, traits: traits, help: help, validation: validation,
      coding: coding)
  }

  /// Declares a required setting (no default) whose type converts through `coding`.
  public init(
    coding: SettingCoding<Value>, key: String? = nil, aliases: [String] = [], traits: SettingTraits = [],
    help: String? = nil, validation: SettingValidation<Value>? = nil
  ) {
    self.init(
      default: nil, key: key, aliases: aliases, traits: traits, help: help, validation: validation,
      coding: coding)
  }
}
