/// The names a profile may have (``StandardLayout``): what goes into a file name between the app's
/// name and the extension, `demo.staging.ini`.
package enum Profiles {
  /// The longest profile name.
  static let maxLength = 64

  /// `text` when it is a profile name (1 to ``maxLength`` letters, digits, `-` and `_`), else `nil`.
  package static func validName(_ text: String) -> String? {
    guard !text.isEmpty, text.utf8.count <= maxLength,
      text.utf8.allSatisfy({ byte in
        (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z"))
          || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
          || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
          || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
      })
    else { return nil }
    return text
  }

  /// Why the profile the program chose is none, or `nil` when it names one or is empty (no profile).
  static func problem(programProfile: String) -> StrataError? {
    guard !programProfile.isEmpty, validName(programProfile) == nil else { return nil }
    return StrataError(
      .invalidValue,
      "the program's profile '\(InputLimits.shortened(programProfile))' is not a profile name (1 to "
        + "\(maxLength) letters, digits, '-' and '_'); no profile is loaded")
  }

  /// The warning for a `variable` that names another profile than the one the program chose, which
  /// replaces it; `nil` when it is empty or names the same.
  static func ignoredVariable(_ variable: String, value: String, programProfile: String) -> StrataError? {
    guard !value.isEmpty, value != programProfile else { return nil }
    let chosen =
      programProfile.isEmpty ? "no profile" : "the profile '\(InputLimits.shortened(programProfile))'"
    return StrataError(
      .invalidValue,
      "environment variable \(variable)=\(InputLimits.shortened(value)) is not used: the program chose "
        + chosen + " (Vapor's --env, or its own option)",
      path: "env:\(variable)")
  }

  /// Why the value of `variable` selects no profile, or `nil` when it names one or is empty (no profile).
  static func problem(variable: String, value: String) -> StrataError? {
    guard !value.isEmpty, validName(value) == nil else { return nil }
    return StrataError(
      .invalidValue,
      "environment variable \(variable)=\(InputLimits.shortened(value)) is not a profile name (1 to "
        + "\(maxLength) letters, digits, '-' and '_'); no profile is loaded",
      path: "env:\(variable)")
  }
}
