/// A snapshot entry's hidden values in the form a setting's record gives them (``HiddenValue``, a
/// level above the snapshot).
extension Snapshot.Entry {
  /// The values of lower layers that this one hides, nearest first, as text (redacted for a secret)
  /// with their origins: what ``SettingRecord/shadowed`` lists for a setting.
  public var hiddenValues: [HiddenValue] {
    shadowed.map { hidden in
      HiddenValue(
        value: isSecret || hidden.isSecret ? redactedText : ValueText.plain(hidden.value),
        origin: hidden.value.origin, rejection: nil)
    }
  }
}
