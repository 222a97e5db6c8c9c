/// PLACEHOLDER: replaced by the real implementation.
public struct JSONFormat: ConfigFormat {
  /// The format's name.
  public static let name = "json"
  /// Extensions that select this format.
  public static let fileExtensions = ["json"]
  /// Creates the format.
  public init() {}
  /// Parses a file.
  public func parse(_ bytes: [UInt8], path: String, options: ParseOptions) throws(StrataError) -> Document {
    throw StrataError(.unsupportedFormat, "not implemented yet", path: path)
  }
  /// Serializes a tree.
  public func serialize(_ value: SettingValue) throws(StrataError) -> [UInt8] {
    throw StrataError(.unsupportedFormat, "not implemented yet")
  }
}
