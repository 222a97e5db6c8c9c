/// How a snapshot is printed.
package struct DumpOptions: Sendable {
  /// The output formats.
  package enum Format: String, Sendable, CaseIterable {
    /// Aligned columns: key, value, and with origins, where it came from.
    case table
    /// The merged tree as JSON (dates as ISO 8601 strings, data as base64).
    case json
    /// The merged tree as INI.
    case ini
    /// The merged tree as an XML property list.
    case plist
    /// `export PREFIX_KEY=value` lines a shell can source.
    case env
  }

  /// The output format.
  package var format: Format
  /// Whether to show where each value came from (table, json, env).
  package var showOrigin: Bool
  /// Whether to show the lower values each key hides (table, json).
  package var showShadowed: Bool
  /// The environment prefix used by the `env` format, without the trailing `_`.
  package var environmentPrefix: String?
  /// Whether secret values (from secret sources such as a key-per-file Secret volume) print in clear.
  package var showSecrets = false
  /// The width of the terminal, for the table format: longer values are cut with `…` (`nil`: never).
  package var maxWidth: Int?

  /// Creates options.
  package init(
    format: Format = .table, showOrigin: Bool = false, showShadowed: Bool = false,
    environmentPrefix: String? = nil
  ) {
    self.format = format
    self.showOrigin = showOrigin
    self.showShadowed = showShadowed
    self.environmentPrefix = environmentPrefix
  }
}
