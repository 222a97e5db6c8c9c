/// A snapshot entry's hidden values in the form a setting's record gives them (``Snapshot/HiddenValue``, a
/// level above the snapshot).
extension Snapshot.Entry {
  /// The values of lower layers that this one hides, nearest first, as text (redacted for a secret)
  /// with their origins: what ``SettingRecord/shadowed`` lists for a setting.
  var hiddenValues: [Snapshot.HiddenValue] {
    shadowed.map { hidden in
      Snapshot.HiddenValue(
        value: isSecret || hidden.isSecret ? redactedText : ValueText.plain(hidden.value),
        origin: hidden.value.origin, rejection: nil)
    }
  }
}

extension Snapshot {
  /// A value of a lower layer that a setting's running value hides (see ``SettingRecord/shadowed``).
  public struct HiddenValue: Sendable, Equatable, CustomStringConvertible {
    /// The value as text (redacted for a secret).
    public var value: String
    /// Where it is.
    public var origin: Origin
    /// Why the setting does not use it, when it was rejected (it does not convert or validate).
    public var rejection: String?

    /// `8080 (/usr/lib/demo/demo.json:3:13)`, or with why it was rejected:
    /// `80a (/etc/demo/demo.ini:2:8; rejected: expected Int for server.port, found "80a")`.
    public var description: String {
      "\(value) (\(origin)\(rejection.map { "; rejected: \($0)" } ?? ""))"
    }
  }
}
