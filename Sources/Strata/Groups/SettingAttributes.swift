/// What a declaration says about its setting besides its key, aliases and traits: the `help:` text,
/// and its validation's summary and bounds (for the JSON Schema).
struct SettingAttributes: Sendable {
  /// A one-line description of the setting, shown in schemas and `--help`-like listings.
  var help: String?
  /// What the setting's validation accepts, in words (`must be in 1...65535`).
  var validationSummary: String?
  /// The bounds of a numeric `.range` validation, `[minimum, maximum]`.
  var validationBounds: [SettingValue]?

  /// Whether no attribute is set.
  var isEmpty: Bool { help == nil && validationSummary == nil && validationBounds == nil }
}
