/// A file format: parses bytes into a ``Document`` with positions, and serializes a tree back to bytes.
///
/// Conforming types are stateless values. `parse` must never crash, hang or recurse without bound on
/// any input: every input yields a document or a ``StrataError`` with file:line:column.
/// `serialize` followed by `parse` gives back an equal tree (for INI and dotenv, with scalars turned to
/// strings).
///
/// A format is used once it is in a ``FormatRegistry``: `FormatRegistry.standard.registering(MyFormat())`.
/// The built-in formats are reached by name: `FormatRegistry.standard.format(named: "toml")`. A store
/// writes a file of your format by parsing it, setting the key in the tree and serializing the whole tree
/// (the built-in INI, dotenv and TOML formats change only the lines of the key written, keeping
/// comments and order).
public protocol ConfigFormat: Sendable {
  /// A short name: `json`, `plist`, `ini`, `dotenv`, `toml`; what `config-dump --input-format` takes.
  static var name: String { get }
  /// File extensions (lower case, without the dot) that select this format. The first one is the
  /// extension of the format's main file in a ``StandardLayout`` (`/etc/APP/APP.EXT`).
  static var fileExtensions: [String] { get }
  /// Parses the bytes of a file.
  /// - Parameters:
  ///   - bytes: the whole file.
  ///   - path: the path reported in origins and errors.
  ///   - options: limits; `resolvePath` is used by formats that read other files.
  func parse(_ bytes: [UInt8], path: String, options: ParseOptions) throws(StrataError) -> Document
  /// Serializes a tree (a table at the top) to the bytes of a file.
  func serialize(_ value: SettingValue) throws(StrataError) -> [UInt8]
}
