import Foundation
import Strata
import StrataYAML

/// Parses YAML text with the default limits (or the given ones).
func parseYAML(_ text: String, options: ParseOptions = ParseOptions()) throws(StrataError) -> Document {
  try YAMLFormat().parse(Array(text.utf8), path: "/etc/demo/demo.yaml", options: options)
}

/// The error a YAML text is refused with, or `nil` when it parses.
func yamlError(_ text: String, options: ParseOptions = ParseOptions()) -> StrataError? {
  do {
    _ = try parseYAML(text, options: options)
    return nil
  } catch {
    return error
  }
}

extension Document {
  /// The content at a dotted key.
  func kind(_ key: String) -> SettingValue.Kind? { root.value(at: key)?.kind }
  /// `line:column` of the value at a dotted key.
  func position(_ key: String) -> String? {
    guard case .file(_, let line, let column) = root.value(at: key)?.origin else { return nil }
    return "\(line):\(column)"
  }
}
