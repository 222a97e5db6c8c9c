/// The codings of settings declared without one (`Codable` types, raw values), made once per value
/// type and shared by every setting of that type: a coding made at each declaration would allocate a
/// context for each of its two closures, per setting.
enum SharedCodings {
  /// How a type declared without a coding converts.
  enum Kind: UInt8, Sendable {
    /// Through `Codable`.
    case codable
    /// Through the raw value (`RawRepresentable`).
    case rawValue
  }

  private struct Key: Hashable, Sendable {
    var type: ObjectIdentifier
    var kind: Kind
  }

  private static let made = Locked<[Key: any Sendable]>([:])

  /// The coding of `Value` by `kind`, made by `make` the first time it is asked for.
  static func coding<Value>(
    _ kind: Kind, for type: Value.Type, make: () -> SettingCoding<Value>
  ) -> SettingCoding<Value> {
    let key = Key(type: ObjectIdentifier(type), kind: kind)
    if let found = made.withLock({ $0[key] }) as? SettingCoding<Value> { return found }
    let coding = make()
    return made.withLock { made in
      if let found = made[key] as? SettingCoding<Value> { return found }
      made[key] = coding
      return coding
    }
  }
}
