/// The formats a store reads and writes: which format a file's extension selects, which a name given
/// on the command line selects, which extensions drop-ins may have, and which main files a
/// ``StandardLayout`` looks for, in order.
///
/// A registry is a value: make one from ``standard`` and pass it where files are read, in
/// ``ParseOptions/formats`` (a ``SettingsStore`` over explicit layers, a layer's ``LoadContext``) or to
/// ``StandardLayout`` and ``SettingsStore/init(app:root:home:environment:profile:arguments:formats:)``.
/// A program's own format (here the `SpaceSeparatedFormat` of <doc:FileFormats>) is added with
/// ``registering(_:isMainFileFormat:)``:
///
/// <!-- snippet: Tests/DocSnippets/FileFormatsSnippets.swift#register -->
/// ```swift
/// let formats = FormatRegistry.standard.registering(SpaceSeparatedFormat())  // your `ConfigFormat`
/// let store = SettingsStore(app: "demo", formats: formats)  // now reads /etc/demo/demo.spaces too
/// ```
public struct FormatRegistry: Sendable {
  /// The registered formats, in order: the order of a layout's main files (lowest first).
  package private(set) var formats: [any ConfigFormat] = []
  /// The extensions of the main files a ``StandardLayout`` looks for, in load order: the first extension
  /// of each format registered as a main-file format.
  package private(set) var mainFileExtensions: [String] = []

  /// The built-in formats: property lists, JSON, INI, dotenv and TOML. Their main files load in that order.
  public static let standard = FormatRegistry()
    .registering(PropertyListFormat())
    .registering(JSONFormat())
    .registering(INIFormat())
    .registering(DotEnvFormat())
    .registering(TOMLFormat())

  /// Creates an empty registry; see ``standard`` for the built-in formats.
  public init() {}

  /// Adds a format in place; see ``registering(_:isMainFileFormat:)``.
  mutating func register(_ format: any ConfigFormat, isMainFileFormat: Bool = true) {
    let formatType = type(of: format)
    if let index = formats.firstIndex(where: { type(of: $0).name == formatType.name }) {
      let old = type(of: formats[index]).fileExtensions.first
      mainFileExtensions.removeAll { $0 == old }
      formats[index] = format
    } else {
      formats.append(format)
    }
    if isMainFileFormat, let main = formatType.fileExtensions.first, !mainFileExtensions.contains(main) {
      mainFileExtensions.append(main)
    }
  }

  /// A copy with `format` added; a format of the same ``ConfigFormat/name`` is replaced where it
  /// stands.
  ///
  /// Where two formats claim one extension, the one registered later wins.
  /// - Parameters:
  ///   - format: the format.
  ///   - isMainFileFormat: whether a ``StandardLayout`` looks for `APP.EXT` (`EXT`: the format's first
  ///     extension) in each of its directories. Files with any of the format's extensions are read as
  ///     drop-ins and as named files either way.
  public func registering(_ format: any ConfigFormat, isMainFileFormat: Bool = true) -> FormatRegistry {
    var copy = self
    copy.register(format, isMainFileFormat: isMainFileFormat)
    return copy
  }

  /// The format an extension selects (without the dot, any case), or `nil`.
  func format(forExtension fileExtension: String) -> (any ConfigFormat)? {
    let wanted = fileExtension.lowercased()
    return formats.last { type(of: $0).fileExtensions.contains(wanted) }
  }

  /// The format a path's extension selects (case-insensitive), or `nil`. A dotfile named only by an
  /// extension (`.env`) counts as having that extension.
  package func format(forPath path: String) -> (any ConfigFormat)? {
    guard let ext = fileExtension(of: path) ?? dotfileExtension(of: path) else { return nil }
    return format(forExtension: ext)
  }

  /// The format with the given name (`json`, `plist`, `ini`, `dotenv`, `toml`; any case), or `nil`.
  public func format(named name: String) -> (any ConfigFormat)? {
    let wanted = name.lowercased()
    return formats.first { type(of: $0).name == wanted }
  }

  /// The names of the registered formats, in order.
  package var names: [String] { formats.map { type(of: $0).name } }

  /// Every extension that selects some format, in registration order.
  package var allExtensions: [String] {
    var seen: Set<String> = []
    return formats.flatMap { type(of: $0).fileExtensions }.filter { seen.insert($0).inserted }
  }

  /// The error for a file whose name selects no format: it lists the extensions and the names that
  /// `--input-format` and `FileLayer(format:)` take.
  func unknownType(_ path: String) -> StrataError {
    StrataError(
      .unsupportedFormat,
      "unknown file type; expected one of: \(allExtensions.map { "." + $0 }.joined(separator: ", ")) "
        + "(or name the format: --input-format \(names.joined(separator: "|")))",
      path: path)
  }
}
