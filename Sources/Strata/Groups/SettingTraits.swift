/// Flags that change how a setting is treated. Extensible: bits 32…63 are free for users.
///
/// <!-- snippet: Tests/DocSnippets/GroupSymbolSnippets.swift#SettingTraits -->
/// ```swift
/// extension SettingTraits {
///   static let experimental = SettingTraits(rawValue: 1 << 32)
/// }
/// struct AdminSettings: SettingsGroup {
///   @Setting(traits: [.secret, .restartRequired]) var apiToken = ""
///   @Setting(traits: .experimental) var fastPath = false
/// }
/// ```
public struct SettingTraits: OptionSet, Sendable, Hashable, CustomStringConvertible {
  /// The bits.
  public let rawValue: UInt64
  /// Creates traits from bits.
  public init(rawValue: UInt64) { self.rawValue = rawValue }

  /// The value is redacted in dumps, descriptions, events and diagnostics.
  public static let secret = SettingTraits(rawValue: 1 << 0)
  /// A changed value is reported as pending restart instead of applied to the running program.
  public static let restartRequired = SettingTraits(rawValue: 1 << 1)
  /// The program cannot write the setting.
  public static let readOnly = SettingTraits(rawValue: 1 << 2)
  /// The setting is going away; files that set it get a warning.
  public static let deprecated = SettingTraits(rawValue: 1 << 3)

  /// The names of the built-in traits that are set, such as `secret, restartRequired`.
  public var description: String {
    let names: [(SettingTraits, String)] = [
      (.secret, "secret"), (.restartRequired, "restartRequired"), (.readOnly, "readOnly"),
      (.deprecated, "deprecated"),
    ]
    var parts = names.filter { contains($0.0) }.map(\.1)
    let custom = rawValue & ~0b1111
    if custom != 0 { parts.append("0x" + String(custom, radix: 16)) }
    return parts.joined(separator: ", ")
  }
}

/// The text shown instead of a secret value.
package let redactedText = "<redacted>"
