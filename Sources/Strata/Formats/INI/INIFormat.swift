/// PLACEHOLDER: replaced by the real implementation.
public struct INIFormat: ConfigFormat {
  /// The format's name.
  public static let name = "ini"
  /// Extensions that select this format.
  public static let fileExtensions = ["ini", "conf", "cfg"]
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
